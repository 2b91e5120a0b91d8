"""One question of a batch, through ``protocols.registry`` — or its run resumed.

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

from assay.batch.files import BatchFiles, ResultRow
from assay.batch.jobs import BatchJob
from assay.config import Settings
from assay.errors import AssayError, BudgetExhausted
from assay.events import Event, RunStarted
from assay.protocols.contract import ProtocolResult, RunEnv
from assay.protocols.registry import protocol_spec, resumable, resume_protocol, run_protocol
from assay.protocols.runner import observing_runs
from assay.report.reading import report_answer
from assay.statuses import CLAIM_STATUSES
from assay.store.claims import ClaimLedger
from assay.store.runs import REPORT_FILE, Run, RunStore

JobListener = Callable[[str, Event], None]


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

    def watch(event: Event) -> None:
        if isinstance(event, RunStarted) and not event.resumed:
            files.record_run(job.id, event.run_id)
        if listener is not None:
            listener(job.id, event)

    result: ProtocolResult | str | None = None
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


async def _dispatch(job: BatchJob, spec: BatchSpec, resume: Run | None) -> ProtocolResult | str:
    settings, question = spec.settings, job.question
    sources = job.sources or spec.sources
    if spec.protocol == "check":  # a batch's own kind of question, not a protocol
        from assay.batch.check import CHECK_SOURCES, check_async

        return await check_async(question, settings=settings, sources=sources or CHECK_SOURCES)
    env = RunEnv(settings)
    if resume is not None and resumable(spec.protocol):
        return await resume_protocol(spec.protocol, resume.id, env)
    fields = {
        "topic": question, "sources": sources, "urls": job.urls,
        "keywords": job.keywords or ([] if job.urls else [question]), "depth": job.depth,
        "output_format": job.format,
        "max_directions": job.max_directions or spec.max_directions, "output": spec.output_dir,
    }  # fmt: skip
    protocol = protocol_spec(spec.protocol)
    return await run_protocol(spec.protocol, protocol.unattended_fields(settings, fields), env)


def _row(
    job: BatchJob,
    spec: BatchSpec,
    run_id: str | None,
    result: ProtocolResult | str | None,
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
    answer = result if isinstance(result, str) else result.answer if result else None
    return row.model_copy(
        update={
            "run_id": run.id,
            "run_dir": str(run.dir),
            "status": run.info.effective_status() if error is None else "failed",
            "reason": error or run.info.reason,
            "answer": answer if isinstance(answer, str) else report_answer(text),
            "report": str(report) if report is not None else None,
            "claims": {s: sum(1 for c in claims if c.status == s) for s in CLAIM_STATUSES},
            "usage": run.info.usage.model_dump(),
        }
    )


def _report_path(run: Run, result: ProtocolResult | str | None) -> Path | None:
    named = result.report if isinstance(result, ProtocolResult) else None
    for candidate in (named, run.dir / REPORT_FILE):
        if candidate is not None and candidate.is_file():
            return candidate
    return None
