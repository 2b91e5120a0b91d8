"""``assay batch --broker``: enqueue the questions signed, then follow the workers' rows.

Workers append each question's row to the batch's file under the shared run store
(``messages.queue_files``) when its run ends; the client copies each row it waits for into
its own results file, shows it, and returns when every question it enqueued has one (Ctrl-C
stops following; the jobs stay queued, and the next run of the batch copies what they wrote).
A message a worker dead-lettered (signed with another key, say) becomes a failed row saying
so, rather than a wait that never ends. A broker silent for longer than a worker's heartbeat
timeout ends the following with one line; the questions stay queued for the next run.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence

import redis
from dramatiq import Message

from assay.batch import BatchFiles, BatchJob, BatchSpec, ResultRow
from assay.batch.files import FINISHED
from assay.queue.consumer import dead_letter_reason_key, dead_letters_key
from assay.queue.envelope import seal
from assay.queue.messages import (
    ACTOR,
    HEARTBEAT_TIMEOUT,
    NAMESPACE,
    QUEUE,
    BrokerWatch,
    make_broker,
    question,
)

FOLLOW_INTERVAL = 0.5
BROKER_PATIENCE = HEARTBEAT_TIMEOUT
"""Seconds the broker may stay silent before following gives up (the workers' default
heartbeat timeout: past it they would have given up on the broker too)."""
GIVEN_UP = "the questions stay queued: run this batch again to collect what workers finish"


def catch_up(shared: BatchFiles, files: BatchFiles) -> int:
    """Copy into ``files`` the finished rows workers wrote that it lacks; how many."""
    mine = files.rows()
    copied = 0
    for job_id, row in shared.rows().items():
        if row.status in FINISHED and (job_id not in mine or mine[job_id].status not in FINISHED):
            files.add_result(row)
            copied += 1
    return copied


def submit(
    url: str, jobs: Sequence[BatchJob], spec: BatchSpec, batch: str, key: bytes
) -> dict[str, str]:
    """Enqueue one signed message per job; the Redis id of each job's message."""
    broker = make_broker(url)
    broker.declare_queue(QUEUE)
    sent: dict[str, str] = {}
    try:
        for job in jobs:
            envelope = seal(question(job, spec, batch), key)
            message: Message[None] = Message(
                queue_name=QUEUE, actor_name=ACTOR, args=(envelope,), kwargs={}, options={}
            )
            sent[job.id] = str(broker.enqueue(message).options["redis_message_id"])
    finally:
        broker.close()
    return sent


def follow(
    url: str,
    shared: BatchFiles,
    files: BatchFiles,
    sent: Mapping[str, str],
    on_row: Callable[[ResultRow], None],
    *,
    after: int,
    timeout: float | None = None,
) -> list[ResultRow]:
    """Until every job of ``sent`` has a row past the first ``after`` rows of ``shared`` (or
    was dead-lettered), copy each into ``files``; their rows."""
    client = redis.Redis.from_url(url)
    watch = BrokerWatch(url, patience=BROKER_PATIENCE, then=GIVEN_UP)
    seen: dict[str, ResultRow] = {}
    deadline = None if timeout is None else time.monotonic() + timeout

    def heard(row: ResultRow) -> None:
        seen[row.id] = row
        files.add_result(row)
        on_row(row)

    try:
        while set(sent) - set(seen):
            for job_id, row in shared.rows(after=after).items():
                if job_id in sent and job_id not in seen:
                    heard(row)
            try:
                rejected = _dead_lettered(client, {j: r for j, r in sent.items() if j not in seen})
            except redis.RedisError as exc:  # rows still arrive through the shared files
                watch.failed(exc)
                rejected = []
            else:
                watch.answered()
            for row in rejected:
                heard(row)
            if deadline is not None and time.monotonic() > deadline:
                break
            time.sleep(FOLLOW_INTERVAL)
    finally:
        client.close()
    return list(seen.values())


def _dead_lettered(client: redis.Redis, waiting: Mapping[str, str]) -> list[ResultRow]:
    if not waiting:
        return []
    ids = list(waiting.items())
    present = client.hmget(dead_letters_key(NAMESPACE, QUEUE), [r for _, r in ids])
    rows = []
    for (job_id, redis_id), body in zip(ids, present, strict=True):
        if body is None:
            continue
        why = client.get(dead_letter_reason_key(NAMESPACE, QUEUE, redis_id))
        reason = why.decode("utf-8", "replace") if isinstance(why, bytes) else "see its log"
        rows.append(ResultRow(id=job_id, status="failed",
                              reason=f"a worker rejected the message: {reason}"))  # fmt: skip
    return rows
