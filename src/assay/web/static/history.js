// History: comparing needs exactly two runs ticked.
(function () {
  var picks = document.querySelectorAll('.pick');
  var button = document.getElementById('compare');
  function update() {
    var ticked = Array.prototype.filter.call(picks, function (p) { return p.checked; });
    button.disabled = ticked.length !== 2;
    document.getElementById('compare-a').value = ticked[0] ? ticked[0].value : '';
    document.getElementById('compare-b').value = ticked[1] ? ticked[1].value : '';
    document.getElementById('compare-hint').textContent = ticked.length === 2
      ? 'Ready to compare.' : 'Tick two runs to compare their answers and claims (' + ticked.length + ' ticked).';
  }
  picks.forEach(function (p) { p.addEventListener('change', update); });
  update();
})();
