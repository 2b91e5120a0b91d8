"""A run's report as one self-contained HTML page, for ``assay export`` and the web app.

The Markdown report is rendered with raw HTML disabled (page text is data: whatever a page
said reaches the browser as text), then every claim marker ``(claim_001: verified)``
becomes a button. Hovering or clicking it shows the claim's verbatim quotes, its status
and a link to each quote's snapshot. The claims travel in a JSON island escaped for a
``<script>`` element; a few lines of plain JS build the popover from it with
``textContent`` only, so no page text is ever parsed as HTML. No CDN, no external file:
the page works offline. An exported page carries the snapshots too (``inline_snapshots``):
its links open the saved text in the page with the quote highlighted at its offsets; the
web app links to its own snapshot view instead.
"""

from __future__ import annotations

import html
import json
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from markdown_it import MarkdownIt

from assay.report.claims_report import render_claims_report
from assay.store.claims import ClaimLedger, ClaimRecord, Evidence
from assay.store.runs import REPORT_FILE, Run
from assay.store.sources import SourceLedger, SourceRecord

# The marker as it reads after Markdown rendering (the same text, HTML-escaped).
_RENDERED_MARKER = re.compile(
    r"\((claim_\d+): (verified|weak|contradicted|needs_review|unverified)\)"
)
SnapshotHref = Callable[[SourceRecord, ClaimRecord, int], str]
"""The link to a source's snapshot with a claim's n-th quote highlighted."""

STYLE = """
body{font:16px/1.55 system-ui,sans-serif;max-width:52rem;margin:2rem auto;padding:0 1rem;
color:#1d1d1f;background:#fff}
h1,h2,h3{line-height:1.25}a{color:#0550ae}
code,pre{font:13px ui-monospace,monospace;background:#f4f4f6}pre{padding:.6rem;overflow:auto}
.cite{font:12px ui-monospace,monospace;border:1px solid #bbb;border-radius:.6rem;
padding:0 .4rem;cursor:pointer;background:#f7f7f9}
.cite.verified{border-color:#1a7f37;color:#1a7f37}.cite.weak{border-color:#9a6700;color:#9a6700}
.cite.contradicted{border-color:#cf222e;color:#cf222e}
.cite.needs_review,.cite.unverified{border-color:#6e7781;color:#57606a}
#quote-pop{position:absolute;max-width:34rem;background:#fff;border:1px solid #888;
border-radius:.4rem;padding:.6rem .8rem;box-shadow:0 4px 16px rgba(0,0,0,.18);font-size:14px;
z-index:10}#quote-pop[hidden]{display:none}#quote-pop blockquote{margin:.4rem 0;
padding-left:.6rem;border-left:3px solid #0550ae}#quote-pop .status{font-weight:600}
#snapshot-view{border-top:2px solid #0550ae;margin-top:2rem}#snapshot-view[hidden]{display:none}
#snapshot-view pre{white-space:pre-wrap;font:14px/1.5 ui-monospace,monospace;background:#fafafa;
padding:1rem}mark{background:#fff3a3;outline:2px solid #e0b000}
"""

SCRIPT = """
(function(){
  var claims = JSON.parse(document.getElementById('claims-data').textContent);
  var pop = document.getElementById('quote-pop');
  var island = document.getElementById('snapshots-data');
  var snapshots = island ? JSON.parse(island.textContent) : null;
  function openSnapshot(q){
    // offsets count code points (Python's), not UTF-16 units
    var text = Array.from(snapshots[q.source] || '');
    var view = document.getElementById('snapshot-view');
    view.replaceChildren();
    add(view, 'h2', q.title);
    var pre = add(view, 'pre', text.slice(0, q.start).join(''));
    var mark = add(pre, 'mark', text.slice(q.start, q.end).join(''));
    mark.id = 'quote';
    pre.appendChild(document.createTextNode(text.slice(q.end).join('')));
    view.hidden = false; pop.hidden = true;
    mark.scrollIntoView({block: 'center'});
  }
  function add(parent, tag, text, cls){
    var el = document.createElement(tag); el.textContent = text;
    if (cls) el.className = cls; parent.appendChild(el); return el;
  }
  function show(button){
    var claim = claims[button.dataset.claim];
    if (!claim) return;
    pop.replaceChildren();
    add(pop, 'div', button.dataset.claim + ': ' + claim.status, 'status');
    add(pop, 'div', claim.text, 'claim');
    claim.quotes.forEach(function(q){
      add(pop, 'blockquote', '\\u201c' + q.quote + '\\u201d', 'quote');
      var line = add(pop, 'div', q.stance + ' \\u00b7 ', 'source');
      var link = add(line, 'a', q.title, 'snapshot');
      link.href = q.href;
      if (snapshots) link.addEventListener('click', function(ev){
        ev.preventDefault(); openSnapshot(q);
      });
    });
    var box = button.getBoundingClientRect();
    pop.style.left = (window.scrollX + box.left) + 'px';
    pop.style.top = (window.scrollY + box.bottom + 6) + 'px';
    pop.hidden = false;
  }
  document.querySelectorAll('.cite').forEach(function(button){
    button.addEventListener('mouseenter', function(){ show(button); });
    button.addEventListener('click', function(ev){ ev.stopPropagation(); show(button); });
  });
  document.addEventListener('click', function(ev){
    if (!pop.contains(ev.target)) pop.hidden = true;
  });
})();
"""


@dataclass(frozen=True)
class ReportParts:
    """What a report page is made of, read from one run directory."""

    topic: str
    markdown: str
    claims: Sequence[ClaimRecord]
    sources: Sequence[SourceRecord]


def report_parts(run: Run) -> ReportParts:
    """The run's report.md (or, when the run wrote none, the report of its ledger)."""
    claims = ClaimLedger(run.dir).claims()
    sources = SourceLedger(run.dir).records()
    path = run.dir / REPORT_FILE
    if path.is_file():
        markdown = path.read_text(encoding="utf-8")
    else:
        markdown = render_claims_report(
            run.info.topic, claims, sources, written_by="assay (no report was written yet)"
        )
    return ReportParts(run.info.topic, markdown, claims, sources)


def inline_snapshot_href(source: SourceRecord, _claim: ClaimRecord, _index: int) -> str:
    """For a page that carries its snapshots: the script opens them in the page."""
    return f"#snapshot-{source.id}"


def inline_snapshots(run: Run, parts: ReportParts) -> dict[str, str]:
    """The text of every snapshot a claim quotes, by source id."""
    quoted = {e.source_id for c in parts.claims for e in c.evidence}
    ledger = SourceLedger(run.dir)
    return {s.id: ledger.read_snapshot(s) for s in parts.sources if s.id in quoted}


def markdown_html(markdown: str) -> str:
    """Markdown as HTML (tables too: synth's fact-checks are tables), with any raw HTML in
    it shown as text."""
    rendered: str = MarkdownIt("commonmark", {"html": False}).enable("table").render(markdown)
    return rendered


def _quotes(
    claim: ClaimRecord, sources: dict[str, SourceRecord], href: SnapshotHref
) -> list[dict[str, str | int]]:
    quotes = []
    for index, evidence in enumerate(claim.evidence):
        source = sources.get(evidence.source_id)
        if source is not None:
            quotes.append(_quote(evidence, source, href(source, claim, index)))
    return quotes


def _quote(evidence: Evidence, source: SourceRecord, link: str) -> dict[str, str | int]:
    return {
        "quote": " ".join(evidence.quote.split()),
        "stance": evidence.stance,
        "title": source.title or source.final_url,
        "href": link,
        "source": source.id,
        "start": evidence.start,
        "end": evidence.end,
    }


def script_json(data: Any) -> str:
    """JSON that is safe inside a ``<script>`` element."""
    text = json.dumps(data, ensure_ascii=True)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def claims_json(parts: ReportParts, href: SnapshotHref) -> str:
    sources = {s.id: s for s in parts.sources}
    return script_json(
        {
            c.id: {"status": c.status, "text": c.text, "quotes": _quotes(c, sources, href)}
            for c in parts.claims
        }
    )


def _cite_button(match: re.Match[str]) -> str:
    claim_id, status = match.group(1), match.group(2)
    return (
        f'<button type="button" class="cite {status}" data-claim="{claim_id}" '
        f'title="{claim_id}: {status}">{claim_id}: {status}</button>'
    )


def cite_buttons(rendered: str) -> str:
    """Rendered report HTML with every claim marker made a button (``data-claim``)."""
    return _RENDERED_MARKER.sub(_cite_button, rendered)


def report_body(
    parts: ReportParts,
    href: SnapshotHref,
    *,
    nonce: str | None = None,
    snapshots: Mapping[str, str] | None = None,
) -> str:
    """The report's HTML fragment: the rendered report, the popover, the data and script
    (and, with ``snapshots``, the snapshots and the view that shows them)."""
    body = cite_buttons(markdown_html(parts.markdown))
    nonce_attr = f' nonce="{html.escape(nonce)}"' if nonce else ""
    carried = ""
    if snapshots is not None:
        carried = (
            '<section id="snapshot-view" hidden></section>\n'
            f'<script type="application/json" id="snapshots-data">{script_json(snapshots)}'
            "</script>\n"
        )
    return (
        f'<article class="report">{body}</article>\n'
        '<div id="quote-pop" role="tooltip" hidden></div>\n'
        f'<script type="application/json" id="claims-data">{claims_json(parts, href)}</script>\n'
        f"{carried}<script{nonce_attr}>{SCRIPT}</script>"
    )


def render_report_html(
    parts: ReportParts, href: SnapshotHref, snapshots: Mapping[str, str] | None = None
) -> str:
    """A whole, self-contained HTML page."""
    return (
        '<!doctype html>\n<html lang="en"><head><meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>{html.escape(parts.topic)}</title>\n<style>{STYLE}</style></head>\n"
        f"<body>\n{report_body(parts, href, snapshots=snapshots)}\n</body></html>\n"
    )
