"""The web UI: server-rendered pages (templates/) with a few lines of plain JS each.

Every page gets a fresh script nonce and a Content-Security-Policy that runs only its own
scripts; all page-derived text goes through Jinja's autoescaping (or, in the report, the
report renderer's own escaping). The live run page follows the run through the SSE API.
"""

from __future__ import annotations

import secrets
from pathlib import Path
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse
from fastapi.templating import Jinja2Templates

from assay.events import EVENT_TYPES
from assay.language import codes, language
from assay.protocols.launch import PROTOCOLS
from assay.report.html import STYLE, SnapshotHref, report_body, report_parts
from assay.store.claims import ClaimLedger, ClaimRecord, ClaimStatus
from assay.store.runs import REPORT_FILE, Run
from assay.store.sources import SourceRecord
from assay.store.summary import run_summary
from assay.web.api import STATUSES, manager
from assay.web.lookup import find_source, open_run, read_snapshot

templates = Jinja2Templates(directory=str(Path(__file__).parent / "templates"))
router = APIRouter(include_in_schema=False)


def _csp(nonce: str) -> str:
    return (
        f"default-src 'none'; script-src 'nonce-{nonce}'; style-src 'unsafe-inline'; "
        "connect-src 'self'; img-src 'self'; form-action 'self'; base-uri 'none'; "
        "frame-ancestors 'none'"
    )


def render(request: Request, name: str, nonce: str | None = None, **context: Any) -> HTMLResponse:
    """A template with a fresh script nonce (or ``nonce``) and the CSP that allows it."""
    nonce = nonce or secrets.token_urlsafe(16)
    response = templates.TemplateResponse(
        request, name, {"nonce": nonce, "report_style": STYLE, **context}
    )
    response.headers["content-security-policy"] = _csp(nonce)
    return response


def snapshot_href(run: Run) -> SnapshotHref:
    """Links to the app's snapshot view, the claim's quote highlighted."""

    def href(source: SourceRecord, claim: ClaimRecord, index: int) -> str:
        return f"/runs/{run.id}/snapshots/{source.id}?claim={claim.id}&quote={index}"

    return href


@router.get("/", response_class=HTMLResponse)
def index(request: Request) -> HTMLResponse:
    runs = manager(request)
    store = runs.store
    rows = [run_summary(store, info) for info in reversed(store.list())]
    settings = runs.settings
    offered = runs.choices
    return render(
        request, "index.html", runs=rows, protocols=PROTOCOLS,
        default_search=settings.search, default_model=settings.model,
        searches=sorted(offered.searches), models=sorted(offered.models),
        languages=[(c, f"{language(c).native} ({c})") for c in codes()],
    )  # fmt: skip


@router.get("/runs/{run_id}", response_class=HTMLResponse)
def run_page(run_id: str, request: Request) -> HTMLResponse:
    run = open_run(manager(request).store, run_id)
    return render(
        request, "run.html", run=run, status=run.info.effective_status(),
        event_types=sorted(EVENT_TYPES), directions=_directions(run),
        matrix=_matrix(run), verdicts=_verdicts(),
    )  # fmt: skip


def report_page(request: Request, run: Run) -> HTMLResponse:
    nonce = secrets.token_urlsafe(16)
    body = report_body(report_parts(run), snapshot_href(run), nonce=nonce)
    return render(request, "report.html", nonce=nonce, run=run, body=body)


@router.get("/runs/{run_id}/report", response_class=HTMLResponse)
def report(run_id: str, request: Request) -> HTMLResponse:
    return report_page(request, open_run(manager(request).store, run_id))


@router.get("/runs/{run_id}/claims", response_class=HTMLResponse)
def claims(run_id: str, request: Request, status: ClaimStatus | None = None) -> HTMLResponse:
    run = open_run(manager(request).store, run_id)
    every = ClaimLedger(run.dir).claims()
    shown = [c for c in every if status is None or c.status == status]
    counts = {s: sum(1 for c in every if c.status == s) for s in STATUSES}
    return render(request, "claims.html", run=run, claims=shown, statuses=STATUSES, counts=counts)


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
        request, "snapshot.html", run=run, source=source, claim=chosen,
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


def _directions(run: Run) -> list[dict[str, Any]]:
    if run.info.protocol != "deep":
        return []
    from assay.protocols.deep.findings import FindingsStore

    rows = []
    for r in FindingsStore(run.dir).reviews():
        outcome = "crashed" if r.crashed else ("insufficient data" if r.insufficient else "ok")
        failed = ", ".join(name for name, passed in r.checks.items() if not passed)
        rows.append({"number": r.number, "name": r.name, "score": r.score,
                     "first_score": r.first_score, "escalated": r.escalated,
                     "outcome": outcome, "failed": failed or "none"})  # fmt: skip
    return rows


def _matrix(run: Run) -> list[Any]:
    report_file = run.dir / REPORT_FILE
    if run.info.protocol != "synth" or not report_file.is_file():
        return []
    from assay.protocols.synth.matrix import parse_fact_checks

    return list(parse_fact_checks(report_file.read_text(encoding="utf-8")))


def _verdicts() -> tuple[str, ...]:
    from assay.protocols.synth.matrix import VERDICTS

    return VERDICTS
