"""REST under ``/api/v1``: start, list, read, verify, resume and cancel runs; stream events.

Every run id and source id from a request goes through ``web.lookup`` (the store's safe
paths). Snapshots and plans are served as ``text/plain`` with ``nosniff``: saved page text
never becomes HTML in the app's origin.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Header, Query, Request
from fastapi.responses import PlainTextResponse, Response, StreamingResponse
from pydantic import BaseModel

from assay.claims.recheck import recheck_run
from assay.protocols.launch import StartRun
from assay.statuses import CLAIM_STATUSES, ClaimStatus
from assay.store.claims import ClaimLedger
from assay.store.runs import PLAN_FILE, Run, load_info
from assay.store.sources import SourceLedger
from assay.store.summary import RunSummary, run_summary
from assay.web.lookup import find_source, open_run, read_snapshot
from assay.web.runs import RunManager, manager
from assay.web.sse import event_stream, start_seq

ReportFormat = Literal["md", "json", "html", "pdf"]
_MEDIA = {"md": "text/markdown; charset=utf-8", "json": "application/json",
          "html": "text/html; charset=utf-8", "pdf": "application/pdf"}  # fmt: skip


class ErrorBody(BaseModel):
    """What every refused request answers."""

    detail: str
    kind: str


_ERRORS: dict[int | str, dict[str, Any]] = {
    400: {"model": ErrorBody, "description": "Input that cannot be used"},
    404: {"model": ErrorBody, "description": "No such run, source or file"},
    409: {"model": ErrorBody, "description": "Not possible in the run's state"},
    429: {"model": ErrorBody, "description": "The limit of concurrent runs is reached"},
}
router = APIRouter(prefix="/api/v1", tags=["runs"], responses=_ERRORS)


class Accepted(BaseModel):
    """A run the server started (or resumed) and now works on."""

    id: str
    status: str
    events: str
    page: str


class RunCounts(BaseModel):
    claims: dict[str, int]
    sources: int
    events: int


class RunDetail(BaseModel):
    run: dict[str, Any]
    status: str
    active: bool
    counts: RunCounts


def _accepted(run_id: str) -> Accepted:
    return Accepted(
        id=run_id, status="running", events=f"/api/v1/runs/{run_id}/events", page=f"/runs/{run_id}"
    )


@router.get("/runs", response_model=list[RunSummary])
def list_runs(request: Request) -> list[dict[str, Any]]:
    """Every run in the store, oldest first."""
    store = manager(request).store
    return [run_summary(store, info) for info in store.list()]


@router.post("/runs", response_model=Accepted, status_code=202)
async def start_run(body: StartRun, request: Request) -> Accepted:
    """Start a run of any protocol; answers with its id at once while it works."""
    return _accepted(await manager(request).start(body))


@router.get("/runs/{run_id}", response_model=RunDetail)
def get_run(run_id: str, request: Request) -> RunDetail:
    """run.json, the effective status and counts of claims, sources and events."""
    runs = manager(request)
    run = open_run(runs.store, run_id)
    claims = ClaimLedger(run.dir).claims()
    return RunDetail(
        run=run.info.model_dump(mode="json"),
        status=run.info.effective_status(),
        active=runs.is_active(run.id),
        counts=RunCounts(
            claims={s: sum(1 for c in claims if c.status == s) for s in CLAIM_STATUSES},
            sources=len(SourceLedger(run.dir).records()),
            events=len(run.events.read().records),
        ),
    )


@router.get("/runs/{run_id}/claims")
def get_claims(
    run_id: str, request: Request, status: ClaimStatus | None = None
) -> list[dict[str, Any]]:
    """claims.jsonl, optionally only the claims of one status."""
    run = open_run(manager(request).store, run_id)
    claims = ClaimLedger(run.dir).claims()
    return [c.to_json() for c in claims if status is None or c.status == status]


@router.get("/runs/{run_id}/sources")
def get_sources(run_id: str, request: Request) -> list[dict[str, Any]]:
    """sources.jsonl: every source the run fetched and saved."""
    run = open_run(manager(request).store, run_id)
    return [s.model_dump(mode="json") for s in SourceLedger(run.dir).records()]


@router.get("/runs/{run_id}/sources/{source_id}/snapshot", response_class=PlainTextResponse)
def get_snapshot(run_id: str, source_id: str, request: Request) -> PlainTextResponse:
    """A source's saved text, always as text/plain."""
    run = open_run(manager(request).store, run_id)
    return PlainTextResponse(read_snapshot(run, find_source(run, source_id)))


@router.get("/runs/{run_id}/plan", response_class=PlainTextResponse)
def get_plan(run_id: str, request: Request) -> PlainTextResponse:
    """plan.md as text (404 while the run has none)."""
    run = open_run(manager(request).store, run_id)
    path = run.dir / PLAN_FILE
    if not path.is_file():
        return PlainTextResponse("this run has no plan", status_code=404)
    return PlainTextResponse(path.read_text(encoding="utf-8"))


@router.get("/runs/{run_id}/report", response_class=Response)
def get_report(run_id: str, request: Request, format: ReportFormat = "md") -> Response:
    """The report as Markdown, JSON, the hover-quote HTML page, or PDF."""
    from assay.report.export import export_bytes

    run = open_run(manager(request).store, run_id)
    if format == "html":
        from assay.web.pages import report_page  # the app's page links its own snapshot view

        return report_page(request, run)
    return Response(export_bytes(run, format), media_type=_MEDIA[format])


@router.post("/runs/{run_id}/verify")
def verify_run(run_id: str, request: Request) -> dict[str, object]:
    """Re-check the run from its files (``assay verify``); ``ok`` says whether all held."""
    run = open_run(manager(request).store, run_id)
    result = recheck_run(run.dir)
    result.record(run.events)
    return result.to_json(run.id)


@router.post("/runs/{run_id}/resume", response_model=Accepted, status_code=202)
async def resume_run(run_id: str, request: Request) -> Accepted:
    """Continue an interrupted research, ask or deep run in this server."""
    runs = manager(request)
    run = open_run(runs.store, run_id)
    return _accepted(await runs.resume(run.id))


@router.post("/runs/{run_id}/cancel", response_model=Accepted, status_code=202)
def cancel_run(run_id: str, request: Request) -> Accepted:
    """Cancel a run this server is running; it ends as interrupted (resumable)."""
    runs = manager(request)
    run = open_run(runs.store, run_id)
    runs.cancel(run.id)
    return Accepted(id=run.id, status="cancelling", events="", page=f"/runs/{run.id}")


@router.get("/runs/{run_id}/events", response_class=StreamingResponse)
def run_events(
    run_id: str,
    request: Request,
    after: Annotated[int | None, Query(ge=-1, description="Last seq already seen.")] = None,
    view: Annotated[bool, Query(description="Add the timeline's line to each event.")] = False,
    last_event_id: Annotated[str | None, Header(max_length=40)] = None,
) -> StreamingResponse:
    """run.log.jsonl as server-sent events from ``after`` (or Last-Event-ID) until the run
    ends."""
    runs = manager(request)
    run = open_run(runs.store, run_id)
    stream = event_stream(
        run.dir, start_seq(after, last_event_id), _running(runs, run), with_view=view
    )
    headers = {"cache-control": "no-cache", "x-accel-buffering": "no"}
    return StreamingResponse(stream, media_type="text/event-stream", headers=headers)


def _running(runs: RunManager, run: Run) -> Callable[[], bool]:
    def running() -> bool:
        if runs.is_active(run.id):
            return True
        return load_info(run.dir).effective_status() == "running"

    return running
