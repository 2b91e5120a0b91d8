// Bring the highlighted quote into view.
document.addEventListener('DOMContentLoaded', function () {
  var mark = document.getElementById('quote');
  if (mark) mark.scrollIntoView({block: 'center'});
});
