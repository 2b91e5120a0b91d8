// Light or dark: the visitor's choice (kept in localStorage) over the system's.
(function () {
  var root = document.documentElement;
  var stored = null;
  try { stored = localStorage.getItem('assay-theme'); } catch (e) { stored = null; }
  if (stored === 'light' || stored === 'dark') root.dataset.theme = stored;
  function current() {
    if (root.dataset.theme) return root.dataset.theme;
    return window.matchMedia('(prefers-color-scheme: dark)').matches ? 'dark' : 'light';
  }
  function label(button) {
    var next = current() === 'dark' ? 'light' : 'dark';
    button.setAttribute('aria-label', 'Switch to ' + next + ' theme');
    button.title = 'Switch to ' + next + ' theme';
    button.textContent = current() === 'dark' ? '\u2600' : '\u263e';
  }
  document.addEventListener('DOMContentLoaded', function () {
    var button = document.getElementById('theme-toggle');
    if (!button) return;
    label(button);
    button.addEventListener('click', function () {
      root.dataset.theme = current() === 'dark' ? 'light' : 'dark';
      try { localStorage.setItem('assay-theme', root.dataset.theme); } catch (e) { /* private mode */ }
      label(button);
    });
  });
})();
