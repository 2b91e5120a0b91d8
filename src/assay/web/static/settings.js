// Settings: store or remove a provider key (PUT/DELETE /api/v1/keys/NAME), then reload.
(function () {
  var out = document.getElementById('settings-error');
  function send(method, name, value) {
    var init = {method: method, headers: {'content-type': 'application/json'}};
    if (value !== undefined) init.body = JSON.stringify({value: value});
    fetch('/api/v1/keys/' + encodeURIComponent(name), init).then(function (r) {
      if (r.status === 204) { window.location.reload(); return; }
      return r.json().then(function (d) { out.textContent = d.detail || 'refused'; });
    });
  }
  document.querySelectorAll('.key-form').forEach(function (form) {
    form.addEventListener('submit', function (ev) {
      ev.preventDefault();
      var input = form.querySelector('input');
      if (!input.value) { out.textContent = 'Type the key first.'; input.focus(); return; }
      send('PUT', form.dataset.key, input.value);
    });
  });
  document.querySelectorAll('.remove-key').forEach(function (button) {
    button.addEventListener('click', function () { send('DELETE', button.dataset.key); });
  });
})();
