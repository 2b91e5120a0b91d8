"""The queue's one actor and its message: a batch question and how to run it.

The broker is dramatiq's RedisBroker with a short heartbeat: a worker that stops
heartbeating (killed, or its host gone) for ``heartbeat_timeout`` has its unacknowledged
messages requeued by the next worker that does maintenance; assay does maintenance on a
tenth of its broker commands, so a dead worker's job comes back within seconds.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import dramatiq
from dramatiq.brokers.redis import RedisBroker

from assay.batch import BatchFiles, BatchJob, BatchSpec, run_job
from assay.config import Settings

QUEUE = "assay-batch"
ACTOR = "assay_run_question"
HEARTBEAT_TIMEOUT = 15.0  # seconds without a heartbeat before a worker counts as dead
MAINTENANCE_CHANCE = 100_000  # per million broker commands
RUN_TIME_LIMIT_MS = 24 * 3600 * 1000  # a run ends by its own budgets, not by dramatiq's clock
MAX_RETRIES = 3  # only an error outside the run (a full disk) is retried; a failed run is a row


def make_broker(url: str, *, heartbeat_timeout: float = HEARTBEAT_TIMEOUT) -> RedisBroker:
    broker = RedisBroker(  # type: ignore[no-untyped-call]
        url=url,
        namespace="assay",
        heartbeat_timeout=int(heartbeat_timeout * 1000),
        maintenance_chance=MAINTENANCE_CHANCE,
    )
    dramatiq.set_broker(broker)
    return broker


def message(job: BatchJob, spec: BatchSpec, files: BatchFiles) -> dict[str, Any]:
    """The JSON a worker needs to run ``job`` (settings carry references, never secrets)."""
    return {
        "job": job.model_dump(mode="json"),
        "protocol": spec.protocol,
        "settings": spec.settings.snapshot(),
        "sources": spec.sources,
        "max_directions": spec.max_directions,
        "output_dir": str(spec.output_dir) if spec.output_dir else None,
        "results": str(files.results.resolve()),
    }


def run_question(payload: dict[str, Any]) -> None:
    """Run (or resume) one question; returning is what acknowledges the message."""
    job = BatchJob.model_validate(payload["job"])
    files = BatchFiles(Path(payload["results"]))
    if job.id in files.finished_ids():
        return  # delivered again after its row was written: nothing left to do
    output = payload.get("output_dir")
    spec = BatchSpec(
        protocol=str(payload["protocol"]),
        settings=Settings.model_validate(payload["settings"]),
        sources=payload.get("sources"),
        max_directions=int(payload.get("max_directions") or 2),
        output_dir=Path(output) if output else None,
    )
    asyncio.run(run_job(job, spec, files))


def declare(broker: RedisBroker) -> dramatiq.Actor[[dict[str, Any]], None]:
    decorate = dramatiq.actor(
        actor_name=ACTOR,
        queue_name=QUEUE,
        broker=broker,
        max_retries=MAX_RETRIES,
        time_limit=RUN_TIME_LIMIT_MS,
    )
    return decorate(run_question)
