"""A run's event log as server-sent events: ``run.log.jsonl`` as it grows.

Each record is one event: ``id`` is its ``seq``, ``event`` its type, ``data`` the record
as written (with ``view``, the line the timeline shows, when asked for). A client starts
after a given seq (``?after=``, or the ``Last-Event-ID`` header a reconnecting
EventSource sends, which wins), so a reconnecting client misses nothing and sees nothing
twice (the log is followed by ``store.tail``: a torn last line waits for the rest of it,
and a replaced log is read again, its events already sent skipped by seq). The stream
ends when the run is no longer running: the run's status is read *before* the file, so
the last read after a finished status holds every event.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

from assay.store.eventlog import LOG_FILE
from assay.store.tail import JsonlTail
from assay.timeline import describe

POLL_S = 0.1
KEEPALIVE_S = 10.0


def sse_message(record: dict[str, Any], *, with_view: bool) -> str:
    if with_view:
        entry = describe(record)
        record = {**record, "view": {"kind": entry.kind, "text": entry.text, "level": entry.level}}
    data = json.dumps(record, ensure_ascii=False)
    return f"id: {record.get('seq', '')}\nevent: {record.get('type', 'message')}\ndata: {data}\n\n"


def start_seq(after: int | None, last_event_id: str | None) -> int:
    """The last seq the client already has (-1: none)."""
    if last_event_id is not None and last_event_id.strip().lstrip("-").isdigit():
        return int(last_event_id.strip())
    return after if after is not None else -1


async def event_stream(
    run_dir: Path,
    after: int,
    running: Callable[[], bool],
    *,
    with_view: bool = False,
    poll: float = POLL_S,
) -> AsyncIterator[str]:
    """The SSE text of every record with ``seq > after``, until the run stops running."""
    tail = JsonlTail(run_dir / LOG_FILE)  # a damaged line: `assay show` reports it
    idle = 0.0
    while True:
        still_running = running()
        fresh = [r for r in tail.read_new() if _seq(r) > after]
        for record in fresh:
            after = max(after, _seq(record))
            yield sse_message(record, with_view=with_view)
        if not still_running:
            yield "event: end\ndata: {}\n\n"
            return
        idle = 0.0 if fresh else idle + poll
        if idle >= KEEPALIVE_S:
            idle = 0.0
            yield ": keep-alive\n\n"
        await asyncio.sleep(poll)


def _seq(record: dict[str, Any]) -> int:
    seq = record.get("seq")
    return seq if isinstance(seq, int) else -1
