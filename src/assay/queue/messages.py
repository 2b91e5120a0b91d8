"""The queue's one actor and its messages: a batch question, signed, and how a worker runs it.

The broker is dramatiq's RedisBroker with a short heartbeat: a worker that stops
heartbeating (killed, or its host gone) for ``heartbeat_timeout`` has its unacknowledged
messages requeued by the next worker that does maintenance; assay does maintenance on a
tenth of its broker commands, so a dead worker's job comes back within seconds. Its
consumers admit only signed questions (``consumer``); the rest are dead-lettered.

A worker keeps a batch's rows under its own run store, ``<home>/queue/<batch>/results.jsonl``
(with the journal beside it): the batch is an id the client derives from its results file,
never a path the message names. The client copies the rows it waits for into its own file.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import dramatiq
import redis

from assay.batch import BatchFiles, BatchJob, BatchSpec, ResultRow, run_job
from assay.config import Settings
from assay.errors import BadInputError, UnavailableError, UserError
from assay.queue.consumer import AdmittingRedisBroker
from assay.queue.envelope import LIMITS, QueuedJob, QueuedQuestion, RejectedMessage, open_envelope

NAMESPACE = "assay"
QUEUE = "assay-batch"
ACTOR = "assay_run_question"
HEARTBEAT_TIMEOUT = 15.0  # seconds without a heartbeat before a worker counts as dead
MAINTENANCE_CHANCE = 100_000  # per million broker commands
RUN_TIME_LIMIT_MS = 24 * 3600 * 1000  # a run ends by its own budgets, not by dramatiq's clock
MAX_RETRIES = 3  # only an error outside the run (a full disk) is retried; a failed run is a row
log = logging.getLogger("assay.queue")


def make_broker(
    url: str, *, key: bytes | None = None, heartbeat_timeout: float = HEARTBEAT_TIMEOUT
) -> AdmittingRedisBroker:
    """The broker at ``url``, once it answers (an unreachable one is a one-line error)."""
    try:
        broker = AdmittingRedisBroker(
            actor=ACTOR,
            key=key,
            url=url,
            namespace=NAMESPACE,
            heartbeat_timeout=int(heartbeat_timeout * 1000),
            maintenance_chance=MAINTENANCE_CHANCE,
        )
        broker.client.ping()
    except ValueError as exc:  # not a redis:// URL
        raise BadInputError(f"--broker is not a Redis URL: {exc}") from None
    except redis.RedisError as exc:
        raise broker_error(url, exc) from None
    dramatiq.set_broker(broker)
    return broker


def broker_error(
    url: str, exc: redis.RedisError, *, silent_for: float = 0.0, then: str = ""
) -> UserError:
    """The one line for a broker that failed with ``exc``: unavailable (exit 8, the same
    command may work later) when it does not answer, a user error when it refuses what the
    URL says (its password, its database); ``then``: what becomes of the work."""
    parts = urlsplit(url)
    where = f"{parts.hostname}:{parts.port or 6379}" if parts.hostname else "--broker"
    after = f"; {then}" if then else ""
    unanswered = isinstance(exc, redis.ConnectionError | redis.TimeoutError)
    if not unanswered or isinstance(exc, redis.AuthenticationError):
        return BadInputError(f"the broker at {where} refused: {exc}{after}")
    if silent_for:
        return UnavailableError(f"lost the broker at {where} ({silent_for:.0f} s without an "
                                f"answer): {exc}{after}")  # fmt: skip
    return UnavailableError(f"cannot reach the broker at {where}: {exc}{after}")


@dataclass
class BrokerWatch:
    """Whether a broker that stopped answering has had long enough to come back.

    A restart of Redis takes a moment; a worker or a client that gave up at the first
    refused connection would end over it. Past ``patience`` seconds without an answer
    (a worker's heartbeat timeout: by then the broker counts the worker dead and requeues
    its messages anyway) ``failed`` raises the one-line ``broker_error``.
    """

    url: str
    patience: float = HEARTBEAT_TIMEOUT
    then: str = ""
    """What becomes of the work when the watcher gives up, for the error line."""
    silent_since: float | None = None

    def answered(self) -> None:
        self.silent_since = None

    def failed(self, exc: redis.RedisError) -> None:
        now = time.monotonic()
        if self.silent_since is None:
            self.silent_since = now
        silent = now - self.silent_since
        error = broker_error(self.url, exc, silent_for=max(silent, 1.0), then=self.then)
        if silent >= self.patience or not isinstance(error, UnavailableError):
            raise error from None  # a refusal (a wrong password) does not get better


def batch_id(results: Path) -> str:
    """The batch a results file stands for: the same file, the same batch (so it resumes)."""
    return hashlib.sha256(str(results.resolve()).encode("utf-8", "surrogatepass")).hexdigest()[:16]


def queue_files(home: Path, batch: str) -> BatchFiles:
    """Where workers sharing ``home`` keep the rows and journal of ``batch``."""
    return BatchFiles(home / "queue" / batch / "results.jsonl")


def question(job: BatchJob, spec: BatchSpec, batch: str) -> QueuedQuestion:
    """What a client asks a worker for ``job``: never its paths, endpoints or commands."""
    settings = spec.settings
    limits = {n: getattr(settings, n) for n in LIMITS if getattr(settings, n) is not None}
    return QueuedQuestion(
        batch=batch,
        job=QueuedJob.model_validate(job.model_dump(include=set(BatchJob.model_fields))),
        protocol=spec.protocol,  # type: ignore[arg-type]  # checked against PROTOCOLS
        sources=spec.sources,
        max_directions=spec.max_directions,
        model=settings.model,
        limits=limits,
    )


def runner(worker: Settings, key: bytes) -> Callable[[Any], None]:
    """The actor's body on a worker: its own settings, its own key."""

    def run_question(envelope: Any) -> None:
        """Run (or resume) one question; returning is what acknowledges the message."""
        asked = open_envelope(envelope, key)  # again: the actor trusts no caller
        files = queue_files(worker.home, asked.batch)
        if asked.job.id in files.finished_ids():
            return  # delivered again after its row was written: nothing left to do
        try:
            settings = asked.settings_for(worker)
        except BadInputError as exc:  # signed, so its batch is real: tell the client why
            log.warning("refused question %s of batch %s: %s", asked.job.id, asked.batch, exc)
            row = ResultRow(id=asked.job.id, line=asked.job.line, protocol=asked.protocol,
                            status="failed", reason=str(exc))  # fmt: skip
            files.add_result(row)
            return
        spec = BatchSpec(asked.protocol, settings, asked.sources, asked.max_directions)
        asyncio.run(run_job(asked.job, spec, files))

    return run_question


def declare(broker: dramatiq.Broker, body: Callable[[Any], None]) -> dramatiq.Actor[[Any], None]:
    decorate = dramatiq.actor(
        actor_name=ACTOR,
        queue_name=QUEUE,
        broker=broker,
        max_retries=MAX_RETRIES,
        time_limit=RUN_TIME_LIMIT_MS,
        throws=(RejectedMessage,),  # never retried: dead-lettered at once
    )
    return decorate(body)
