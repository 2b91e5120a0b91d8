// The report page: the verification bar's shares, and re-checking the run from its files.
(function () {
  document.querySelectorAll('.summary-bar span').forEach(function (part) {
    part.style.width = part.dataset.share + '%';
  });
  var button = document.getElementById('verify');
  if (!button) return;
  var runId = window.location.pathname.split('/')[2];
  button.addEventListener('click', function () {
    var out = document.getElementById('verify-result');
    button.disabled = true;
    out.textContent = 'Checking every quote against its saved page…';
    fetch('/api/v1/runs/' + encodeURIComponent(runId) + '/verify', {method: 'POST'})
      .then(function (r) { return r.json(); })
      .then(function (result) {
        button.disabled = false;
        out.textContent = result.ok
          ? 'All ' + (result.claims || []).length + ' claims hold: every quote is where the run says it is.'
          : (result.failures || []).length + ' problem(s): ' + (result.failures || []).join('; ');
      })
      .catch(function () { button.disabled = false; out.textContent = 'The server did not answer.'; });
  });
})();
