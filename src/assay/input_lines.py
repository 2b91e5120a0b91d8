"""The lines of a JSONL file the user handed in: each one a JSON value, or named as bad.

One reader for every command that takes such a file (``assay batch``, ``assay eval``,
``assay index add``), so they agree on what a bad line is and how it is named:
``FILE:LINE: what is wrong``. A line is bad when it is not UTF-8 text or not JSON; each
command adds its own rule for the shape a value must have. A bad line never hides the others:
callers report it and keep the rest, and the line's number is its place in the file
(blank lines count; they are skipped). Run files are read elsewhere (``store.jsonl``), where a
torn final line means a crash, not a mistake.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

BOM = b"\xef\xbb\xbf"  # some editors start a UTF-8 file with it


@dataclass(frozen=True)
class BadLine:
    """A line that cannot be used, and why (one line, naming the file and line)."""

    line: int
    message: str

    def describe(self, path: Path) -> str:
        return f"{path}:{self.line}: {self.message}"


def json_lines(data: bytes) -> Iterator[tuple[int, Any] | BadLine]:
    """Each non-blank line of ``data`` as (its number, its JSON value), or a ``BadLine``."""
    for number, chunk in enumerate(data.removeprefix(BOM).split(b"\n"), start=1):
        if not chunk.strip():
            continue
        try:
            text = chunk.decode("utf-8")
        except UnicodeDecodeError as exc:
            where = f"byte 0x{chunk[exc.start]:02x} at column {exc.start + 1}"
            yield BadLine(number, f"not UTF-8 text ({where})")
            continue
        try:
            yield number, json.loads(text)
        except json.JSONDecodeError as exc:
            yield BadLine(number, f"not JSON ({exc.msg} at column {exc.colno})")
        except RecursionError:
            yield BadLine(number, "not JSON (nested too deeply)")


def not_utf8(data: bytes) -> str | None:
    """Where ``data`` stops being UTF-8 text (for a one-line error), or None when it is."""
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        column = exc.start - (data.rfind(b"\n", 0, exc.start) + 1) + 1
        return f"not UTF-8 text (byte 0x{data[exc.start]:02x} at line {line}, column {column})"
    return None
