"""``chain.jsonl``: a hash chain over a run's files, appended as they are written.

The chain opens with a header naming its format and the assay that started it; after
that, every time a run writes run.json, appends a source or an event, appends or changes a
claim, annotates a source, or writes a top-level file such as report.md, one entry is
appended here::

    {"seq": 7, "kind": "claim", "id": "claim_003",
     "parts": {"text": <sha256>, "evidence": <sha256>, "status": <sha256>, ...},
     "prev": <hash of entry 6>, "hash": <sha256 of seq, kind, id, parts and prev>}

``parts`` hold one digest per field of the record as its file holds it (secrets masked):
every field of run.json, of a source line, of a claim line (its status, reason, checks,
relevance and who wrote it included) and of an event line; a file's bytes. A rewrite that
changes a record appends a new entry for the same id; the latest entry for an id is what
the record must match, and records must stand in their files in the order they were
first chained.

What it protects against: quiet edits of the files after the fact. Any edited field, a
relabelled source, an edited report sentence, a removed, added or moved line, and an
edited or deleted chain entry (every entry commits to the one before it) are found by
``assay verify`` and named. A run without a chain, or whose chain does not open with the
header of this format, fails: a forger can delete a chain as easily as a run made before
chains lacks one, so the two cannot be told apart and both fail closed.

What it does not protect against: someone who rewrites the records and then recomputes
the whole chain consistently, or appends entries of their own (there is no secret key and
no outside witness), or a process that writes through assay's own ledgers. Nor does it
prove who wrote a run. Catching a consistent rewrite needs the chain's head kept where
the forger cannot write (``assay verify --json`` reports it).

Each entry is written just before its record. A crash between the two leaves an entry
whose record is missing or older; ``verify`` reports that run as not matching until a
``resume`` writes the record again under the same id (ids and event numbers are
sequential), which appends a newer entry that the record then matches.

Entries are appended one whole line per write (``store.jsonl``); a torn last line from a
crash is skipped with a warning, and the next append links to the last whole entry.
"""

from __future__ import annotations

import hashlib
import json
import os
import threading
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

from assay.__about__ import __version__
from assay.store.jsonl import append_jsonl, dumps_line, read_jsonl

CHAIN_FILE = "chain.jsonl"
GENESIS = "0" * 64
FORMAT = "2"
"""The chain format: 2 chains every field of every record (1 chained a few of a claim's
and a source's, and neither run.json nor the event log)."""
HEADER_KIND, HEADER_ID = "chain", "format"
_TAIL_BYTES = 8192
_LOCKS: dict[Path, threading.RLock] = {}
_LOCKS_GUARD = threading.Lock()


def digest(value: object) -> str:
    """sha256 of ``value`` as canonical JSON (sorted keys, no spaces, UTF-8)."""
    text = json.dumps(value, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def file_parts(data: bytes) -> dict[str, str]:
    return {"sha256": hashlib.sha256(data).hexdigest()}


def record_parts(record: Mapping[str, Any]) -> dict[str, str]:
    """A digest of each field of a record, so that ``verify`` can name the field changed."""
    return {str(name): digest(value) for name, value in record.items()}


def written_parts(record: Mapping[str, Any]) -> dict[str, str]:
    """``record_parts`` of ``record`` as its JSON line holds it, known secrets masked
    (``store.jsonl``): the parts ``verify`` computes from the file must be these."""
    return record_parts(json.loads(dumps_line(dict(record))))


@dataclass(frozen=True)
class ChainEntry:
    seq: int
    kind: str
    id: str
    parts: Mapping[str, str]
    prev: str
    hash: str

    @staticmethod
    def link(seq: int, kind: str, record_id: str, parts: Mapping[str, str], prev: str) -> str:
        return digest({"seq": seq, "kind": kind, "id": record_id, "parts": parts, "prev": prev})

    def to_json(self) -> dict[str, Any]:
        return {
            "seq": self.seq,
            "kind": self.kind,
            "id": self.id,
            "parts": dict(self.parts),
            "prev": self.prev,
            "hash": self.hash,
        }

    @classmethod
    def from_json(cls, raw: Mapping[str, Any]) -> ChainEntry | None:
        try:
            parts = raw["parts"]
            if not isinstance(parts, dict):
                return None
            return cls(
                int(raw["seq"]),
                str(raw["kind"]),
                str(raw["id"]),
                {str(k): str(v) for k, v in parts.items()},
                str(raw["prev"]),
                str(raw["hash"]),
            )
        except (KeyError, TypeError, ValueError):
            return None


@dataclass
class ChainRead:
    """The chain as found: its entries, where links break, and the latest parts per record."""

    entries: list[ChainEntry] = field(default_factory=list)
    breaks: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)

    @property
    def header(self) -> Mapping[str, str] | None:
        """The parts of the format header, when the chain opens with one."""
        first = self.entries[0] if self.entries else None
        if first is None or (first.kind, first.id) != (HEADER_KIND, HEADER_ID):
            return None
        return first.parts

    def latest(self, kind: str) -> dict[str, Mapping[str, str]]:
        """The newest chained parts of every record of ``kind``, by id, in first-seen order."""
        found: dict[str, Mapping[str, str]] = {}
        for entry in self.entries:
            if entry.kind == kind:
                found[entry.id] = entry.parts
        return found


@dataclass
class HashChain:
    """The chain of one run directory. Appends are no-ops until ``start`` created the file,
    so a directory without a chain (an older run) is never half-chained by a resume."""

    run_dir: Path
    fsync: bool = True

    @property
    def path(self) -> Path:
        return self.run_dir / CHAIN_FILE

    @property
    def started(self) -> bool:
        return self.path.is_file()

    def start(self) -> None:
        """Create the chain with its header (format and writer), once."""
        self.path.touch(exist_ok=True)
        with self.lock():
            if self.path.stat().st_size == 0:
                writer = {"format": FORMAT, "writer": f"assay {__version__}"}
                self.append(HEADER_KIND, HEADER_ID, writer)

    def lock(self) -> threading.RLock:
        """One lock per chain file in this process: ledgers of one run share it."""
        with _LOCKS_GUARD:
            return _LOCKS.setdefault(self._resolved, threading.RLock())

    @cached_property
    def _resolved(self) -> Path:
        return self.path.resolve()

    def append(self, kind: str, record_id: str, parts: Mapping[str, str]) -> None:
        if not self.started:
            return
        with self.lock():
            seq, prev = self._tail()
            entry = ChainEntry(
                seq + 1,
                kind,
                record_id,
                parts,
                prev,
                ChainEntry.link(seq + 1, kind, record_id, parts, prev),
            )
            append_jsonl(self.path, entry.to_json(), fsync=self.fsync)

    def append_changed(self, kind: str, records: Mapping[str, Mapping[str, str]]) -> None:
        """Chain each record whose parts differ from its latest entry (new ones too)."""
        if not self.started:
            return
        with self.lock():
            latest = {
                e.id: e.parts
                for e in map(ChainEntry.from_json, read_jsonl(self.path).records)
                if e is not None and e.kind == kind
            }  # links are checked by ``verify``; here only the newest parts matter
            for record_id, parts in records.items():
                if latest.get(record_id) != parts:
                    self.append(kind, record_id, parts)

    def read(self) -> ChainRead:
        """Every whole entry, with each broken link named."""
        raw = read_jsonl(self.path)
        result = ChainRead()
        result.warnings.extend(f"{CHAIN_FILE}: {p}" for p in raw.problems)
        prev, expected_seq = GENESIS, 1
        for number, record in enumerate(raw.records, start=1):
            entry = ChainEntry.from_json(record)
            if entry is None:
                result.breaks.append(f"{CHAIN_FILE} line {number} is not a chain entry")
                continue
            what = f"{CHAIN_FILE} entry {entry.seq} ({entry.kind} {entry.id})"
            if entry.seq != expected_seq or entry.prev != prev:
                result.breaks.append(f"{what} does not follow entry {expected_seq - 1}")
            if entry.hash != ChainEntry.link(
                entry.seq, entry.kind, entry.id, entry.parts, entry.prev
            ):
                result.breaks.append(f"{what} was edited: its hash does not match its content")
            result.entries.append(entry)
            prev, expected_seq = entry.hash, entry.seq + 1
        return result

    def _tail(self) -> tuple[int, str]:
        """(seq, hash) of the last whole entry, read from the end of the file."""
        try:
            with self.path.open("rb") as handle:
                size = handle.seek(0, os.SEEK_END)
                handle.seek(max(0, size - _TAIL_BYTES))
                tail = handle.read()
        except FileNotFoundError:
            return 0, GENESIS
        whole = tail.split(b"\n")[:-1]  # what follows the last newline is torn (or empty)
        if size > _TAIL_BYTES:
            whole = whole[1:]  # the first piece may start mid-line
        for line in reversed(whole):
            try:
                entry = ChainEntry.from_json(json.loads(line))
            except (json.JSONDecodeError, UnicodeDecodeError):
                entry = None
            if entry is not None:
                return entry.seq, entry.hash
        if size > _TAIL_BYTES:
            entries = self.read().entries
            if entries:
                return entries[-1].seq, entries[-1].hash
        return 0, GENESIS
