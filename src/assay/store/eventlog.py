"""``run.log.jsonl``: the append-only, numbered record of everything a run did.

In a run directory with a hash chain, each event is chained (``store.chain``) just before
it is written, by its number: a removed, edited or moved event is found by ``assay verify``.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from assay.events import Event, parse_event
from assay.redact import mask
from assay.store.chain import HashChain, written_parts
from assay.store.jsonl import JsonlRead, append_jsonl, read_jsonl

LOG_FILE = "run.log.jsonl"

Listener = Callable[[Event], None]
"""Hears each event after it is written, as written (with any secret scrubbed)."""


def utc_now() -> str:
    """ISO-8601 UTC with milliseconds and a Z, the one timestamp format of run files."""
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


@dataclass
class EventLog:
    """Appends typed events durably; numbering continues across resumes.

    ``secrets`` are scrubbed from every line before it is written, so a key that slipped
    into an error message never reaches the disk. Listeners (progress displays, the batch
    watch) get each event after it is written, as the typed ``Event`` of the written line.
    """

    path: Path
    fsync: bool = True
    secrets: frozenset[str] = frozenset()
    listeners: list[Listener] = field(default_factory=list)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)
    _next_seq: int = field(init=False, default=-1)
    _chain: HashChain = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self._chain = HashChain(self.path.parent, fsync=self.fsync)

    def emit(self, event: Event) -> dict[str, Any]:
        with self._lock:
            if self._next_seq < 0:
                self._next_seq = _last_seq(read_jsonl(self.path).records) + 1
            record = {
                "type": event.type,
                "data": event.data(),
                "ts": utc_now(),
                "seq": self._next_seq,
            }
            if self.secrets:
                record = _scrubbed(record, self.secrets)
                event = parse_event(record) or event  # what was written, not the secret
            with self._chain.lock():
                self._chain.append("event", str(record["seq"]), written_parts(record))
                append_jsonl(self.path, record, fsync=self.fsync)
            self._next_seq += 1
        for listener in list(self.listeners):
            listener(event)
        return record

    def read(self) -> JsonlRead:
        return read_jsonl(self.path)

    def events(self) -> list[Event]:
        """The typed events of the log, skipping lines this version cannot read."""
        return typed_events(self.read().records)


def typed_events(records: list[dict[str, Any]]) -> list[Event]:
    """``records`` as events; a line of an unknown type or an old shape is left out."""
    return [event for event in map(parse_event, records) if event is not None]


def _last_seq(records: list[dict[str, Any]]) -> int:
    seqs = [r["seq"] for r in records if isinstance(r.get("seq"), int)]
    return max(seqs, default=-1)


def _scrubbed(value: Any, secrets: frozenset[str]) -> Any:
    if isinstance(value, str):
        return mask(value, secrets)
    if isinstance(value, dict):
        return {k: _scrubbed(v, secrets) for k, v in value.items()}
    if isinstance(value, list):
        return [_scrubbed(v, secrets) for v in value]
    return value
