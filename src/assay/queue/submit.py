"""``assay batch --broker``: enqueue the questions, then follow the results file.

Workers append each question's row to the batch's results file (on the shared run store)
when its run ends; the submitter shows them as they come and returns when every question
it enqueued has one (Ctrl-C stops following; the jobs stay queued).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence

from assay.batch import BatchFiles, BatchJob, BatchSpec, ResultRow
from assay.queue.messages import declare, make_broker, message

FOLLOW_INTERVAL = 0.5


def submit(url: str, jobs: Sequence[BatchJob], spec: BatchSpec, files: BatchFiles) -> int:
    """Enqueue one message per job; how many were sent."""
    broker = make_broker(url)
    actor = declare(broker)
    try:
        for job in jobs:
            actor.send(message(job, spec, files))
    finally:
        broker.close()
    return len(jobs)


def follow(
    files: BatchFiles,
    ids: Sequence[str],
    on_row: Callable[[ResultRow], None],
    *,
    after: int,
    timeout: float | None = None,
) -> list[ResultRow]:
    """Wait until every id has a row past the first ``after`` rows of the file; their rows."""
    wanted, seen = set(ids), dict[str, ResultRow]()
    deadline = None if timeout is None else time.monotonic() + timeout
    while wanted - set(seen):
        for job_id, row in files.rows(after=after).items():
            if job_id in wanted and job_id not in seen:
                seen[job_id] = row
                on_row(row)
        if deadline is not None and time.monotonic() > deadline:
            break
        time.sleep(FOLLOW_INTERVAL)
    return list(seen.values())
