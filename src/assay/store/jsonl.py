"""Durable JSON Lines: each record is one whole line, appended and flushed at once.

A writer killed mid-append can leave at most one torn final line; readers skip it and
say so instead of failing, so everything written before the crash stays readable.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from assay.redact import redact


def dumps_line(record: dict[str, Any]) -> bytes:
    """One record as one line of compact, key-sorted JSON, with known secrets masked."""
    return encode_line(record)[0]


def encode_line(record: dict[str, Any]) -> tuple[bytes, bool]:
    """``dumps_line``, and whether masking a secret changed the line."""
    line = json.dumps(record, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
    masked = redact(line)
    return (masked + "\n").encode("utf-8"), masked != line


def append_jsonl(path: Path, record: dict[str, Any], *, fsync: bool = True) -> None:
    """Append one record with a single write(2) on an O_APPEND descriptor."""
    append_jsonl_many(path, [record], fsync=fsync)


def append_jsonl_many(path: Path, records: Iterable[dict[str, Any]], *, fsync: bool = True) -> int:
    """Append ``records`` in one write; returns how many bytes the file grew by."""
    data = b"".join(dumps_line(r) for r in records)
    if not data:
        return 0
    fd = os.open(path, os.O_RDWR | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        if _ends_torn(fd):
            # A previous writer died mid-line: end that fragment so our record stays whole.
            data = b"\n" + data
        written = 0
        while written < len(data):
            written += os.write(fd, data[written:])
        if fsync:
            os.fsync(fd)
    finally:
        os.close(fd)
    return written


def _ends_torn(fd: int) -> bool:
    size = os.fstat(fd).st_size
    if size == 0:
        return False
    return os.pread(fd, 1, size - 1) != b"\n"


@dataclass
class JsonlRead:
    """What a read found: the whole records, and the lines that were not whole records."""

    records: list[dict[str, Any]] = field(default_factory=list)
    torn_final_line: bool = False
    bad_lines: list[int] = field(default_factory=list)

    @property
    def problems(self) -> list[str]:
        found = [f"line {n} is not a JSON record and was skipped" for n in self.bad_lines]
        if self.torn_final_line:
            found.append("the last line is torn (an interrupted write) and was skipped")
        return found


def read_jsonl(path: Path) -> JsonlRead:
    """Read every whole record; a missing file reads as empty."""
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return JsonlRead()
    return parse_lines(raw.split(b"\n"))


def parse_lines(lines: list[bytes]) -> JsonlRead:
    """The records of a file's lines; an unparsable last line is torn, not bad."""
    result = JsonlRead()
    last_index = len(lines) - 1
    for index, line in enumerate(lines):
        if not line.strip():
            continue
        record = parse_line(line)
        if record is not None:
            result.records.append(record)
        elif index == last_index:
            result.torn_final_line = True
        else:
            result.bad_lines.append(index + 1)
    return result


def parse_line(line: bytes) -> dict[str, Any] | None:
    """One JSONL line's object, or None for a line that is not a JSON object."""
    try:
        value = json.loads(line)
    except (json.JSONDecodeError, UnicodeDecodeError):
        return None
    return value if isinstance(value, dict) else None
