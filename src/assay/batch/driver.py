"""Many questions at once in one process: at most ``concurrency`` runs in flight.

The runs' fetchers are made inside ``shared_pacing()``, so they pace each domain together:
running questions side by side never sends one domain more than a request a second. Each
run keeps its own budgets.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from assay.batch.execute import BatchSpec, JobListener, run_job
from assay.batch.files import BatchFiles, ResultRow
from assay.batch.jobs import BatchJob
from assay.events import Event
from assay.gather.fetch.pacing import shared_pacing


@dataclass
class BatchEvents:
    """What a display hears about a batch; every hook is optional."""

    started: list[Any] = field(default_factory=list)  # f(job)
    event: list[JobListener] = field(default_factory=list)  # f(job id, event)
    ended: list[Any] = field(default_factory=list)  # f(row)


def pending(jobs: Sequence[BatchJob], files: BatchFiles) -> list[BatchJob]:
    """The jobs a (re-)run still has to do: those without a finished result."""
    finished = files.finished_ids()
    return [job for job in jobs if job.id not in finished]


async def run_batch(
    jobs: Sequence[BatchJob],
    spec: BatchSpec,
    files: BatchFiles,
    *,
    concurrency: int = 2,
    events: BatchEvents | None = None,
) -> list[ResultRow]:
    """Run every job (none already finished are given again) and return their rows."""
    hooks = events or BatchEvents()
    slots = asyncio.Semaphore(concurrency)

    def heard(job_id: str, event: Event) -> None:
        for hook in hooks.event:
            hook(job_id, event)

    async def one(job: BatchJob) -> ResultRow:
        async with slots:
            for hook in hooks.started:
                hook(job)
            row = await run_job(job, spec, files, heard)
            for hook in hooks.ended:
                hook(row)
            return row

    with shared_pacing():  # the runs' fetchers, made in these tasks, pace domains together
        return list(await asyncio.gather(*(one(job) for job in jobs)))
