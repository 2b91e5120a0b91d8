"""The web UI's run pages: the start form, the live run page, the report, the claims
table and the snapshot view (templates/, static/; plain JS, no build step).

Every page gets a fresh script nonce and a Content-Security-Policy that runs only its own
scripts (``web.render``); all page-derived text goes through Jinja's autoescaping (or, in
the report, the report renderer's own escaping). The live page follows the run through
the SSE API; the history, comparison and settings pages are ``web.history`` and
``web.settings``.
"""

from __future__ import annotations

import secrets
from dataclasses import replace

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, PlainTextResponse

from assay.errors import AssayError
from assay.keys import KeyStore
from assay.language import codes, language
from assay.report.html import SnapshotHref, markdown_html, report_body, report_parts
from assay.statuses import CLAIM_STATUSES, ClaimStatus
from assay.store.claims import ClaimLedger, ClaimRecord
from assay.store.runs import PLAN_FILE, Run
from assay.store.sources import SourceRecord
from assay.store.summary import run_summary
from assay.web import form, live
from assay.web.article import numbered_rows, page_article
from assay.web.history import newest_first
from assay.web.lookup import find_source, open_run, read_snapshot
from assay.web.render import render
from assay.web.report_view import STATUS_LABELS, run_view, source_rows
from assay.web.runs import manager

router = APIRouter(include_in_schema=False)
RECENT_RUNS = 6


def snapshot_href(run: Run) -> SnapshotHref:
    """Links to the app's snapshot view, the claim's quote highlighted."""

    def href(source: SourceRecord, claim: ClaimRecord, index: int) -> str:
        return f"/runs/{run.id}/snapshots/{source.id}?claim={claim.id}&quote={index}"

    return href


@router.get("/", response_class=HTMLResponse)
def index(request: Request, again: str | None = None) -> HTMLResponse:
    """The start form (``?again=RUN`` fills it with that run's question and options)."""
    runs = manager(request)
    settings = runs.settings
    keys = KeyStore(settings.home, settings.keys)
    store = runs.store
    rows = [run_summary(store, info) for info in newest_first(store)[:RECENT_RUNS]]
    previous = None
    if again:
        try:
            previous = open_run(store, again).info
        except AssayError:
            previous = None
    return render(
        request, "home.html", nav="new", runs=rows,
        protocols=form.protocol_choices(settings, keys),
        searches=form.search_choices(settings, runs.choices, keys),
        models=form.model_choices(settings, runs.choices, keys),
        presets=form.PRESETS, presets_json={p.key: p.values for p in form.PRESETS},
        prefill=form.prefill(previous), again=again if previous else None,
        languages=[(c, f"{language(c).native} ({c})") for c in codes()],
    )  # fmt: skip


@router.get("/runs/{run_id}", response_class=HTMLResponse)
def run_page(run_id: str, request: Request) -> HTMLResponse:
    runs = manager(request)
    run = open_run(runs.store, run_id)
    status = run.info.effective_status()
    return render(
        request, "run.html", run=run, status=status,
        title=form.PROTOCOL_TEXT.get(run.info.protocol, (run.info.protocol,))[0],
        data=live.run_data(run, status, runs.is_active(run.id)),
        matrix=live.legacy_matrix(run), verdicts=live.verdicts(),
    )  # fmt: skip


def report_page(request: Request, run: Run) -> HTMLResponse:
    nonce = secrets.token_urlsafe(16)
    view = run_view(run)
    parts = report_parts(run)
    article = page_article(parts.markdown, answer_shown=view.answer.kind == "answer")
    body = report_body(replace(parts, markdown=article.markdown), snapshot_href(run), nonce=nonce)
    return render(
        request, "report.html", nonce=nonce, run=run, body=body, view=view,
        status=run.info.effective_status(), statuses=CLAIM_STATUSES, labels=STATUS_LABELS,
        sources=numbered_rows(source_rows(view.claims, view.sources), article.numbers),
        title=form.PROTOCOL_TEXT.get(run.info.protocol, (run.info.protocol,))[0],
    )  # fmt: skip


@router.get("/runs/{run_id}/report", response_class=HTMLResponse)
def report(run_id: str, request: Request) -> HTMLResponse:
    return report_page(request, open_run(manager(request).store, run_id))


@router.get("/runs/{run_id}/report/article", response_class=HTMLResponse)
def report_article(run_id: str, request: Request) -> HTMLResponse:
    """The report as it stands, rendered (raw HTML in it shown as text), for the live page
    to show as it is written; its claim markers become the same buttons as the report's."""
    from assay.report.html import cite_buttons

    run = open_run(manager(request).store, run_id)
    article = cite_buttons(markdown_html(report_parts(run).markdown))
    return HTMLResponse(f'<article class="report">{article}</article>')


@router.get("/runs/{run_id}/plan", response_class=PlainTextResponse)
def plan_tile(run_id: str, request: Request) -> PlainTextResponse:
    """The plan as the live page shows it (``live.plan_shown``); 404 while there is none."""
    path = open_run(manager(request).store, run_id).dir / PLAN_FILE
    if not path.is_file():
        return PlainTextResponse("this run has no plan", status_code=404)
    return PlainTextResponse(live.plan_shown(path.read_text(encoding="utf-8")))


@router.get("/runs/{run_id}/claims", response_class=HTMLResponse)
def claims(run_id: str, request: Request, status: ClaimStatus | None = None) -> HTMLResponse:
    run = open_run(manager(request).store, run_id)
    every = ClaimLedger(run.dir).claims()
    shown = [c for c in every if status is None or c.status == status]
    counts = {s: sum(1 for c in every if c.status == s) for s in CLAIM_STATUSES}
    return render(
        request, "claims.html", run=run, claims=shown, statuses=CLAIM_STATUSES, counts=counts,
        labels=STATUS_LABELS, chosen=status,
    )  # fmt: skip


@router.get("/runs/{run_id}/snapshots/{source_id}", response_class=HTMLResponse)
def snapshot(
    run_id: str, source_id: str, request: Request, claim: str | None = None, quote: int = 0
) -> HTMLResponse:
    run = open_run(manager(request).store, run_id)
    source = find_source(run, source_id)
    text = read_snapshot(run, source)
    chosen = _claim(run, claim)
    start, end = _quote_span(text, chosen, source.id, quote)
    return render(
        request, "snapshot.html", run=run, source=source, claim=chosen, labels=STATUS_LABELS,
        before=text[:start], quote=text[start:end] if end > start else None, after=text[end:],
    )  # fmt: skip


def _claim(run: Run, claim_id: str | None) -> ClaimRecord | None:
    if claim_id is None:
        return None
    return next((c for c in ClaimLedger(run.dir).claims() if c.id == claim_id), None)


def _quote_span(
    text: str, claim: ClaimRecord | None, source_id: str, index: int
) -> tuple[int, int]:
    """Where the claim's ``index``-th quote is in ``text`` (at its recorded offsets, as
    ``assay verify`` checks them); (0, 0) when it is not there."""
    if claim is None or not 0 <= index < len(claim.evidence):
        return 0, 0
    evidence = claim.evidence[index]
    if evidence.source_id != source_id or not 0 <= evidence.start < evidence.end <= len(text):
        return 0, 0
    return evidence.start, evidence.end
