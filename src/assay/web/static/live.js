// The live run page: everything here is built from the run's typed events (the SSE
// stream, from seq 0) and its JSON files (claims, plan), never from parsing Markdown.
(function () {
  var data = JSON.parse(document.getElementById('run-data').textContent);
  var base = '/api/v1/runs/' + encodeURIComponent(data.id);
  var $ = function (id) { return document.getElementById(id); };
  var st = {status: data.status, started: null, ended: null, lastSeq: -1, pages: 0,
            searches: 0, created: 0, verified: 0, tokens: 0, calls: 0, workers: 0,
            claims: {}, claimItems: {}, directions: {}, matrix: {}, blocked: {}, phase: {}};
  var source = null;

  function el(tag, cls, text) {
    var node = document.createElement(tag);
    if (cls) node.className = cls;
    if (text !== undefined && text !== null) node.textContent = text;
    return node;
  }
  function add(parent, tag, cls, text) { var node = el(tag, cls, text); parent.appendChild(node); return node; }
  function domain(url) { try { return new URL(url).hostname.replace(/^www\./, ''); } catch (e) { return url; } }
  function listed(id) {
    var list = $(id), empty = document.querySelector('[data-empty-for="' + id + '"]');
    if (empty) empty.hidden = list.children.length > 0;
    var count = $(id + '-count');
    if (count) count.textContent = list.children.length ? '(' + list.children.length + ')' : '';
  }
  var timers = {};
  function soon(key, fn, wait) {
    if (timers[key]) return;
    timers[key] = setTimeout(function () { timers[key] = null; fn(); }, wait || 250);
  }

  // phases and progress ----------------------------------------------------------------
  var phaseItems = {};
  document.querySelectorAll('#phases .phase').forEach(function (li) { phaseItems[li.dataset.phase] = li; });
  var order = data.phases.map(function (p) { return p.name; });
  function setPhase(name, state, detail) {
    var li = phaseItems[name];
    if (!li) return;
    st.phase[name] = state;
    li.className = 'phase ' + state;
    if (detail !== undefined) li.querySelector('.state').textContent = detail;
    else li.querySelector('.state').textContent = state === 'done' ? 'done' : state === 'active' ? 'working' : 'waiting';
  }
  function partial(name) {
    if (name === 'gather') return Math.min(0.9, st.pages / Math.max(1, data.expected.pages || 5));
    if (name === 'worker') return Math.min(0.95, st.workers / Math.max(1, data.expected.directions || 3));
    if (name === 'verify') return st.created ? Math.min(0.95, st.verified / st.created) : 0.3;
    return 0.4;
  }
  function clock(seconds) {
    seconds = Math.max(0, Math.round(seconds));
    return seconds < 60 ? seconds + ' s' : Math.floor(seconds / 60) + ' min ' + (seconds % 60) + ' s';
  }
  function progress() {
    var total = 0;
    order.forEach(function (name) {
      var state = st.phase[name], part = state === 'done' ? 1 : state === 'active' ? partial(name) : 0;
      var fill = phaseItems[name].querySelector('.fill');
      fill.style.width = Math.round(part * 100) + '%';
      total += part;
    });
    var share = st.status === 'done' ? 1 : order.length ? total / order.length : 0;
    var overall = $('overall');
    overall.querySelector('.fill').style.width = Math.round(share * 100) + '%';
    overall.setAttribute('aria-valuenow', String(Math.round(share * 100)));
    var now = st.ended || Date.now(), elapsed = st.started ? (now - st.started) / 1000 : 0;
    var text = Math.round(share * 100) + '% · ' + clock(elapsed) + ' so far';
    if (st.status === 'running' && share > 0.05) {
      var left = elapsed * (1 - share) / share;
      if (data.budgets.budget_time) left = Math.min(left, data.budgets.budget_time - elapsed);
      text += ' · about ' + clock(left) + ' left (estimate)';
    } else if (st.status !== 'running') {
      text = st.status + ' after ' + clock(elapsed);
    }
    $('estimate').textContent = text;
    var budgets = $('budgets');
    budgets.replaceChildren();
    var used = {budget_time: [elapsed, clock], budget_tokens: [st.tokens, String],
                budget_fetches: [st.pages, String], budget_model_calls: [st.calls, String]};
    var names = {budget_time: 'time', budget_tokens: 'model tokens', budget_fetches: 'page fetches',
                 budget_model_calls: 'model calls'};
    Object.keys(data.budgets).forEach(function (key) {
      var pair = used[key];
      add(budgets, 'li', '', names[key] + ': ' + pair[1](pair[0]) + ' of ' + pair[1](data.budgets[key]) + ' budget');
    });
    if (!Object.keys(data.budgets).length) add(budgets, 'li', '', 'No budget set: the protocol decides when it has read enough.');
  }
  setInterval(function () { if (st.status === 'running') progress(); }, 1000);

  // claims, plan and report: fetched from their JSON/text files when events say they changed
  function claimItem(id) {
    if (st.claimItems[id]) return st.claimItems[id];
    var li = el('li', 'claim');
    li.tabIndex = 0;
    li.dataset.claim = id;
    add(li, 'span', 'text', 'Reading…');
    add(li, 'span', 'chip unverified', 'unverified');
    add(li, 'span', 'meta', id);
    add(li, 'div', 'quote', 'The quote appears once the claim is saved.').setAttribute('role', 'note');
    $('claims').appendChild(li);
    st.claimItems[id] = li;
    listed('claims');
    return li;
  }
  function setStatus(li, status) {
    var chip = li.querySelector('.chip');
    chip.className = 'chip ' + status;
    chip.textContent = status.replace('_', ' ');
  }
  function showClaim(claim) {
    st.claims[claim.id] = claim;
    var li = claimItem(claim.id);
    li.querySelector('.text').textContent = claim.text;
    setStatus(li, claim.status);
    var sources = (claim.sourceIds || []).length;
    li.querySelector('.meta').textContent = claim.id + ' · ' + claim.confidence + ' confidence · ' +
      sources + (sources === 1 ? ' source' : ' sources') + (claim.reason ? ' · ' + claim.reason : '');
    var quote = li.querySelector('.quote'), evidence = claim.evidence || [];
    quote.replaceChildren();
    if (!evidence.length) quote.textContent = 'No quote holds this claim yet.';
    evidence.slice(0, 2).forEach(function (e) {
      add(quote, 'div', '', '\u201c' + e.quote.replace(/\s+/g, ' ') + '\u201d');
      add(quote, 'div', 'small muted', (e.stance || 'supports') + ' · ' + e.sourceId);
    });
  }
  function fetchClaims() {
    return fetch(base + '/claims').then(function (r) { return r.ok ? r.json() : []; })
      .then(function (claims) { claims.forEach(showClaim); });
  }
  function fetchPlan() {
    if (!st.planned) return Promise.resolve();
    // the page's own view of plan.md: output files by name, not the server's temp paths
    return fetch('/runs/' + encodeURIComponent(data.id) + '/plan').then(function (r) { return r.ok ? r.text() : null; })
      .then(function (text) { if (text) $('plan').textContent = text; });
  }
  function fetchReport() {
    return fetch('/runs/' + encodeURIComponent(data.id) + '/report/article')
      .then(function (r) { return r.ok ? r.text() : null; })
      .then(function (html) {
        if (!html) return;
        $('report-live').innerHTML = html; // rendered by the server with raw HTML disabled
        $('report-live').querySelectorAll('.cite').forEach(function (b) {
          b.addEventListener('mouseenter', function () { pop(b); });
          b.addEventListener('focus', function () { pop(b); });
          b.addEventListener('click', function (ev) { ev.stopPropagation(); pop(b); });
        });
      });
  }
  function pop(button) {
    var claim = st.claims[button.dataset.claim], box = $('quote-pop');
    if (!claim) return;
    box.replaceChildren();
    add(box, 'div', 'status', claim.id + ': ' + claim.status.replace('_', ' '));
    add(box, 'div', '', claim.text);
    (claim.evidence || []).forEach(function (e) { add(box, 'blockquote', '', '\u201c' + e.quote + '\u201d'); });
    var rect = button.getBoundingClientRect();
    box.style.left = Math.max(8, Math.min(window.scrollX + rect.left, window.scrollX + window.innerWidth - 380)) + 'px';
    box.style.top = (window.scrollY + rect.bottom + 6) + 'px';
    box.hidden = false;
  }
  document.addEventListener('click', function (ev) { if (!$('quote-pop').contains(ev.target)) $('quote-pop').hidden = true; });
  document.addEventListener('keydown', function (ev) { if (ev.key === 'Escape') $('quote-pop').hidden = true; });

  // deep's directions and synth's verdict matrix -----------------------------------------
  function direction(number, name) {
    var row = st.directions[number];
    if (!row) {
      var tr = el('tr');
      tr.dataset.direction = String(number);
      row = st.directions[number] = {tr: tr, cells: {}};
      ['number', 'name', 'score', 'status', 'escalation', 'failed'].forEach(function (key) {
        row.cells[key] = add(tr, 'td', key === 'number' || key === 'score' ? 'num' : '', '');
      });
      row.cells.number.textContent = String(number);
      var body = document.querySelector('#directions tbody');
      if (body) body.appendChild(tr);
    }
    if (name) row.cells.name.textContent = name;
    return row;
  }
  function setDirection(row, status, cls) {
    row.cells.status.replaceChildren(el('span', 'chip ' + (cls || ''), status));
  }
  function matrixRow(checker, author) {
    var key = checker + ' \u2192 ' + author, row = st.matrix[key];
    if (row) return row;
    var tr = el('tr');
    tr.dataset.pair = key;
    add(tr, 'td', '', key);
    row = st.matrix[key] = {tr: tr, checker: checker, counts: {}};
    ['VERIFIED', 'FALSE', 'UNVERIFIABLE'].forEach(function (v) { row.counts[v] = add(tr, 'td', 'num', '0'); });
    row.blocked = add(tr, 'td', '', st.blocked[checker] || '');
    document.querySelector('#matrix tbody').appendChild(tr);
    return row;
  }
  function alertBox(text, cls) { add($('alerts'), 'p', 'alert ' + (cls || ''), text); }

  // the events ---------------------------------------------------------------------------
  var on = {
    'run.started': function (d, r) {
      if (!st.started) st.started = Date.parse(r.ts);
      st.status = 'running'; st.ended = null; showStatus();
    },
    'run.finished': function (d, r) {
      st.status = d.status; st.ended = Date.parse(r.ts);
      if (d.status === 'done') order.forEach(function (n) { setPhase(n, 'done'); });
      if (d.reason && d.status !== 'done') alertBox(d.reason, d.status === 'failed' ? 'bad' : '');
      showStatus();
    },
    'phase.started': function (d) {
      var at = order.indexOf(d.phase);
      order.slice(0, Math.max(0, at)).forEach(function (n) { if (st.phase[n] === 'active') setPhase(n, 'done'); });
      setPhase(d.phase, 'active', d.detail || 'working');
      var m = d.phase === 'worker' && /^direction (\d+): (.*)$/.exec(d.detail || '');
      if (m) setDirection(direction(Number(m[1]), m[2]), 'working', 'running');
    },
    'phase.finished': function (d) {
      if (d.phase === 'worker') { st.workers += 1; setPhase('worker', 'active', st.workers + ' done'); return; }
      setPhase(d.phase, 'done', d.detail || 'done');
      data.phases.forEach(function (p) { if (p.after === d.phase) setPhase(p.name, 'active'); });
    },
    'plan.written': function () { st.planned = true; soon('plan', fetchPlan, 300); },
    'tool.search': function (d) {
      var li = add($('searches'), 'li');
      add(li, 'strong', '', d.resultCount + (d.resultCount === 1 ? ' hit' : ' hits'));
      add(li, 'span', 'muted', ' · ' + (d.provider || 'search') + ' · ' + d.queries.length + ' queries' +
        (d.errors ? ' · ' + Object.keys(d.errors).length + ' failed' : ''));
      var queries = add(li, 'div', 'queries');
      d.queries.forEach(function (q) { add(queries, 'span', 'query', q); });
      listed('searches');
    },
    'tool.open_url': function (d) {
      st.pages += 1;
      var li = add($('pages'), 'li');
      var link = add(li, 'a', '', d.title || d.url);
      link.href = d.sourceId ? '/runs/' + encodeURIComponent(data.id) + '/snapshots/' + encodeURIComponent(d.sourceId) : d.url;
      add(li, 'div', 'domain', domain(d.url));
      listed('pages');
    },
    'source.skipped': function (d) {
      var li = add($('pages'), 'li', 'muted', 'Skipped ' + domain(d.url) + ': ' + d.reason);
      li.dataset.skipped = 'yes';
      listed('pages');
    },
    'claim.created': function (d) { st.created += 1; claimItem(d.id); soon('claims', fetchClaims); },
    'claim.verified': function (d) {
      st.verified += 1;
      setStatus(claimItem(d.id), d.status);
      if (st.claims[d.id]) st.claims[d.id].status = d.status;
      soon('claims', fetchClaims, 400);
    },
    'research.answer': function (d) {
      $('answer-card').hidden = false;
      $('answer-text').textContent = d.text || 'No direct answer found.';
      $('answer-basis').textContent = d.text ? 'Rests on ' + d.claimIds.join(', ') + ' · ' + d.method : (d.reason || '');
    },
    'report.updated': function () { soon('report', fetchReport, 300); soon('claims', fetchClaims, 300); },
    'warning': function (d) {
      var m = d.code === 'insufficient_data' && /^direction (\d+)/.exec(d.message);
      if (m) setDirection(direction(Number(m[1])), 'insufficient data', 'warn');
      else alertBox(d.message);
    },
    'error': function (d) { alertBox(d.message, 'bad'); },
    'signal': function (d) {
      if (d.signal === '[BLOCK]' && d.agent) {
        st.blocked[d.agent] = d.detail || 'blocked';
        Object.keys(st.matrix).forEach(function (k) {
          if (st.matrix[k].checker === d.agent) st.matrix[k].blocked.textContent = st.blocked[d.agent];
        });
      }
      if (d.signal === '[BLOCK]' || d.signal === '[MISMATCH]') alertBox(d.signal + ' ' + (d.agent || '') + ': ' + (d.detail || ''));
    },
    'usage': function (d) { st.tokens += (d.inputTokens || 0) + (d.outputTokens || 0); st.calls += 1; },
    'deep.direction_scored': function (d) {
      var row = direction(d.direction, d.name);
      row.cells.score.textContent = Number(d.score).toFixed(1) + (d.attempt > 1 ? ' (retry)' : '');
      var failed = Object.keys(d.checks).filter(function (k) { return !d.checks[k]; });
      row.cells.failed.textContent = failed.join(', ') || 'none';
      var passed = d.score >= 6 && !failed.length;
      setDirection(row, passed ? 'passed' : d.attempt > 1 ? 'below the bar' : 'scored', passed ? 'good' : 'warn');
    },
    'deep.escalation': function (d) {
      var row = direction(d.direction, d.name);
      row.cells.escalation.textContent = d.reason + ' → ' + d.queries.join(' · ');
      setDirection(row, 'retrying', 'running');
    },
    'synth.checked': function (d) {
      var cell = matrixRow(d.checker, d.author).counts[d.verdict];
      if (cell) cell.textContent = String(Number(cell.textContent) + 1);
    }
  };

  function showStatus() {
    var chip = $('run-status');
    chip.className = 'chip ' + st.status;
    chip.textContent = st.status;
    $('cancel').hidden = st.status !== 'running';
    $('resume').hidden = !(st.status === 'interrupted' && data.resumable);
    progress();
  }
  function onEvent(ev) {
    var record = JSON.parse(ev.data);
    if (record.seq <= st.lastSeq) return;
    st.lastSeq = record.seq;
    var line = add($('timeline'), 'div', 'event level-' + record.view.level,
                   record.ts.slice(11, 19) + ' ' + record.view.kind + ' ' + record.view.text);
    line.dataset.seq = String(record.seq);
    var handler = on[record.type];
    if (handler) handler(record.data || {}, record);
    progress();
  }
  function follow() {
    source = new EventSource(base + '/events?view=1&after=' + st.lastSeq);
    data.eventTypes.forEach(function (type) { source.addEventListener(type, onEvent); });
    source.addEventListener('end', function () {
      source.close();
      progress();
      // the last state of every file, then the page says it has settled
      Promise.all([fetchClaims(), fetchReport(), fetchPlan()]).finally(function () {
        document.body.dataset.ended = 'yes';
      });
    });
  }
  function act(what, button) {
    button.disabled = true;
    $('action-error').textContent = '';
    fetch(base + '/' + what, {method: 'POST'})
      .then(function (r) { return r.json().then(function (d) { return [r.status, d]; }); })
      .then(function (res) {
        button.disabled = false;
        if (res[0] !== 202) { $('action-error').textContent = res[1].detail || 'refused'; return; }
        if (what === 'cancel') { button.textContent = 'Cancelling…'; button.disabled = true; }
        if (what === 'resume') { delete document.body.dataset.ended; st.status = 'running'; showStatus(); follow(); }
      });
  }
  $('cancel').addEventListener('click', function () { act('cancel', $('cancel')); });
  $('resume').addEventListener('click', function () { act('resume', $('resume')); });
  ['searches', 'pages', 'claims'].forEach(listed);
  progress();
  follow();
})();
