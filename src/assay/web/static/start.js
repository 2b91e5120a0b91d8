// The start form: each protocol shows its own fields; presets fill them; the server's
// answer (a refusal names what is wrong) is shown under the form, never as a bare page.
(function () {
  var form = document.getElementById('start-form');
  if (!form) return;
  var presets = JSON.parse(document.getElementById('presets-data').textContent);
  var prefill = JSON.parse(document.getElementById('prefill-data').textContent);
  var errorBox = document.getElementById('start-error');
  var LISTS = ['include_domains', 'exclude_domains', 'keywords'];
  var NUMBERS = ['sources', 'max_directions', 'budget_tokens'];

  function chosen() { return form.querySelector('input[name=protocol]:checked'); }

  function showFields() {
    var radio = chosen();
    var wanted = radio ? radio.dataset.fields.split(' ') : [];
    form.querySelectorAll('[data-field]').forEach(function (box) {
      var on = wanted.indexOf(box.dataset.field) >= 0;
      box.hidden = !on;
      box.querySelectorAll('input, select, textarea').forEach(function (el) { el.disabled = !on; });
    });
  }

  function setValue(name, value) {
    var el = form.elements[name];
    if (!el || value === undefined || value === null) return;
    if (el.tagName === 'SELECT') {
      var option = Array.prototype.find.call(el.options, function (o) {
        return o.value === String(value) && !o.disabled;
      });
      if (option) el.value = option.value;
      return;
    }
    el.value = value;
  }

  function choose(protocol) {
    var radio = document.getElementById('protocol-' + protocol);
    if (radio && !radio.disabled) radio.checked = true;
    showFields();
  }

  form.querySelectorAll('input[name=protocol]').forEach(function (r) {
    r.addEventListener('change', showFields);
  });
  form.querySelectorAll('.preset').forEach(function (button) {
    var values = presets[button.dataset.preset] || {};
    var radio = document.getElementById('protocol-' + values.protocol);
    if (radio && radio.disabled) { button.disabled = true; button.title = 'Unavailable on this server'; }
    button.addEventListener('click', function () {
      form.querySelectorAll('.preset').forEach(function (b) { b.setAttribute('aria-pressed', 'false'); });
      button.setAttribute('aria-pressed', 'true');
      choose(values.protocol);
      Object.keys(values).forEach(function (name) { if (name !== 'protocol') setValue(name, values[name]); });
      if (values.budget_time) document.getElementById('more').open = true;
    });
  });
  ['search', 'model'].forEach(function (name) { setValue(name, prefill[name]); });
  if (!chosen()) {
    var first = form.querySelector('input[name=protocol]:not(:disabled)');
    if (first) first.checked = true;
  }
  showFields();

  function field(name) {
    var el = form.elements[name];
    return el && !el.disabled ? el.value.trim() : '';
  }

  function body() {
    var data = {topic: form.elements.topic.value, protocol: chosen() ? chosen().value : 'research'};
    if (field('search')) data.search = field('search');
    if (field('api_key')) {
      data.api_key = field('api_key');
      if (field('own_model')) data.model = field('own_model');
      if (field('base_url')) data.base_url = field('base_url');
    } else if (field('model')) {
      data.model = field('model');
    }
    LISTS.forEach(function (name) {
      var listed = field(name).split(/[\s,]+/).filter(function (d) { return d; });
      if (listed.length) data[name] = listed;
    });
    var urls = field('urls').split(/\s+/).filter(function (u) { return u; });
    if (urls.length) data.urls = urls;
    NUMBERS.forEach(function (name) { if (field(name)) data[name] = Number(field(name)); });
    if (field('budget_time')) data.budget_time = Math.round(Number(field('budget_time')) * 60);
    if (field('depth')) data.depth = field('depth');
    ['since', 'until', 'language'].forEach(function (name) { if (field(name)) data[name] = field(name); });
    return data;
  }

  function explain(detail) {
    if (typeof detail === 'string') return detail;
    if (Array.isArray(detail)) {
      return detail.map(function (d) {
        var where = (d.loc || []).filter(function (p) { return p !== 'body'; }).join('.');
        return (where ? where + ': ' : '') + d.msg;
      }).join('; ');
    }
    return 'the server refused the request';
  }

  function mark(message) {
    form.querySelectorAll('[aria-invalid]').forEach(function (el) { el.removeAttribute('aria-invalid'); });
    Array.prototype.forEach.call(form.elements, function (el) {
      if (el.id && !el.disabled && message.indexOf(el.id) >= 0) el.setAttribute('aria-invalid', 'true');
    });
  }

  form.addEventListener('submit', function (ev) {
    ev.preventDefault();
    errorBox.textContent = '';
    if (!form.elements.topic.value.trim()) {
      errorBox.textContent = 'Write a question first.';
      form.elements.topic.setAttribute('aria-invalid', 'true');
      form.elements.topic.focus();
      return;
    }
    var button = document.getElementById('start');
    button.disabled = true;
    fetch('/api/v1/runs', {method: 'POST', headers: {'content-type': 'application/json'},
                           body: JSON.stringify(body())})
      .then(function (r) { return r.json().then(function (data) { return [r.status, data]; }); })
      .then(function (res) {
        if (res[0] === 202) { window.location = res[1].page; return; }
        var message = explain(res[1].detail);
        errorBox.textContent = 'Not started: ' + message;
        errorBox.dataset.status = String(res[0]);
        mark(message);
        button.disabled = false;
      })
      .catch(function () {
        errorBox.textContent = 'Not started: the server did not answer.';
        button.disabled = false;
      });
  });
})();
