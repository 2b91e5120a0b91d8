"""One question of a batch, through its protocol's own entry point — or its run resumed.

The run a question gets is journaled the moment it starts (``observing_runs`` sees its
``run.started``). Running a question again looks there first: a finished run is only read
back, an interrupted one (Ctrl-C, a killed worker) is resumed from its files where the
protocol can resume (research, ask, deep); web-research and check start a new run.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from assay.batch.files import BatchFiles, ResultRow
from assay.batch.jobs import BatchJob
from assay.config import Settings
from assay.errors import AssayError, BudgetExhausted, RunError
from assay.protocols.runner import observing_runs
from assay.report.reading import report_answer
from assay.store.claims import ClaimLedger
from assay.store.runs import REPORT_FILE, Run, RunStore

RESUMABLE = ("research", "ask", "deep")
STATUSES = ("verified", "weak", "contradicted", "needs_review", "unverified")
JobListener = Callable[[str, dict[str, Any]], None]


@dataclass(frozen=True)
class BatchSpec:
    """What every question of a batch shares: protocol, settings, per-protocol defaults."""

    protocol: str
    settings: Settings
    sources: int | None = None
    max_directions: int = 2
    output_dir: Path | None = None  # deep's research_*.md files (default: the run store)


async def run_job(
    job: BatchJob, spec: BatchSpec, files: BatchFiles, listener: JobListener | None = None
) -> ResultRow:
    """Run (or resume, or read back) ``job``; its row is appended to the results file."""
    started = time.monotonic()
    previous = _previous_run(spec.settings, files.run_ids().get(job.id))
    resumed = previous is not None and previous.info.status != "done"

    def watch(record: dict[str, Any]) -> None:
        if record.get("type") == "run.started" and not record["data"].get("resumed"):
            files.record_run(job.id, str(record["data"]["runId"]))
        if listener is not None:
            listener(job.id, record)

    result: Any = None
    error: str | None = None
    with observing_runs(lambda run: run.events.listeners.append(watch)):
        try:
            if previous is not None and previous.info.status == "done":
                run_id = previous.id
            else:
                result = await _dispatch(job, spec, previous if resumed else None)
                run_id = None
        except BudgetExhausted:
            run_id = None  # the run ended with a partial report; its files say so
        except Exception as exc:  # one question's failure (its run says so) ends only it
            error, run_id = _message(exc), None
    run_id = run_id or files.run_ids().get(job.id)
    row = _row(job, spec, run_id, result, error, time.monotonic() - started, resumed)
    files.add_result(row)
    return row


def _message(exc: Exception) -> str:
    return str(exc) if isinstance(exc, AssayError) else f"{type(exc).__name__}: {exc}"


def _previous_run(settings: Settings, run_id: str | None) -> Run | None:
    if run_id is None:
        return None
    try:
        run = RunStore(settings.home).open(run_id)
    except AssayError:
        return None  # the journal names a run the store no longer has: start afresh
    return None if run.info.status == "failed" else run


async def _dispatch(job: BatchJob, spec: BatchSpec, resume: Run | None) -> Any:
    settings, question = spec.settings, job.question
    sources = job.sources or spec.sources
    if resume is not None and spec.protocol in RESUMABLE:
        return await _resume(spec, resume.id)
    if spec.protocol in ("research", "ask"):
        from assay.protocols.research import ask_async, research_async

        if spec.protocol == "ask":
            return await ask_async(question, settings=settings)
        return await research_async(question, settings=settings, sources=sources or 5)
    if spec.protocol == "web-research":
        from assay.protocols.web_research import web_research_async

        keywords = job.keywords or ([] if job.urls else [question])
        return await web_research_async(
            question, job.urls, keywords, job.depth, job.format, settings=settings
        )
    if spec.protocol == "deep":
        from assay.protocols.deep import deep_research_async

        return await deep_research_async(
            question,
            settings=settings,
            max_directions=job.max_directions or spec.max_directions,
            output=spec.output_dir or settings.home / "deep-reports",
        )
    if spec.protocol == "check":
        from assay.batch.check import CHECK_SOURCES, check_async

        return await check_async(question, settings=settings, sources=sources or CHECK_SOURCES)
    raise RunError(f"unknown protocol {spec.protocol!r}")


async def _resume(spec: BatchSpec, run_id: str) -> Any:
    if spec.protocol == "deep":
        from assay.protocols.deep import deep_resume_async

        return await deep_resume_async(run_id, settings=spec.settings)
    from assay.protocols.research import resume_async

    return await resume_async(run_id, settings=spec.settings)


def _row(
    job: BatchJob,
    spec: BatchSpec,
    run_id: str | None,
    result: Any,
    error: str | None,
    seconds: float,
    resumed: bool,
) -> ResultRow:
    row = ResultRow(
        id=job.id, line=job.line, protocol=spec.protocol, resumed=resumed, status="failed",
        reason=error, wall_seconds=round(seconds, 3),
    )  # fmt: skip
    if run_id is None:
        return row
    run = RunStore(spec.settings.home).open(run_id)
    report = _report_path(run, result)
    text = report.read_text(encoding="utf-8") if report is not None else ""
    claims = ClaimLedger(run.dir).claims()
    answer = result if isinstance(result, str) else getattr(result, "answer", None)
    return row.model_copy(
        update={
            "run_id": run.id,
            "run_dir": str(run.dir),
            "status": run.info.effective_status() if error is None else "failed",
            "reason": error or run.info.reason,
            "answer": answer if isinstance(answer, str) else report_answer(text),
            "report": str(report) if report is not None else None,
            "claims": {s: sum(1 for c in claims if c.status == s) for s in STATUSES},
            "usage": run.info.usage.model_dump(),
        }
    )


def _report_path(run: Run, result: Any) -> Path | None:
    named = getattr(result, "report", None) or getattr(result, "report_path", None)
    for candidate in (Path(named) if named else None, run.dir / REPORT_FILE):
        if candidate is not None and candidate.is_file():
            return candidate
    return None
