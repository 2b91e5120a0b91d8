"""Following a run file that another process writes: the one owner of "what changed".

``FileState`` is what a file looked like (inode, size, mtime): a reader that saw the same
state has nothing new to read. ``JsonlTail`` reads an append-only JSONL file (the event
log) incrementally, from the end of the last whole line it read:

- a partial last line (a writer mid-append) is left unread, and read whole once it is
  completed; ``torn`` says one is pending;
- a file replaced atomically (a new inode) or cut shorter than what was read is read again
  from its first line (``rewritten`` says so), so a reader never resumes mid-line in a
  different file; readers that must not show a record twice skip what they have by ``seq``;
- a line that is not a JSON record is skipped and its number kept in ``bad_lines``.

An edit in place that keeps the inode and does not shrink the file cannot be told from an
append here; assay never writes a log that way (``store.jsonl`` appends, ``store.atomic``
replaces).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from assay.store.jsonl import parse_line


@dataclass(frozen=True)
class FileState:
    """A file's inode, size and mtime: equal states mean nothing changed."""

    inode: int
    size: int
    mtime_ns: int

    @classmethod
    def of(cls, stat: os.stat_result) -> FileState:
        return cls(stat.st_ino, stat.st_size, stat.st_mtime_ns)


def file_state(path: Path) -> FileState | None:
    """The file's state, None when it does not exist (or cannot be read)."""
    try:
        return FileState.of(path.stat())
    except OSError:
        return None


@dataclass
class JsonlTail:
    """The new whole records of a JSONL file since the last read (see the module docstring)."""

    path: Path
    offset: int = 0
    """Bytes of whole lines read so far."""
    line_number: int = 0
    bad_lines: list[int] = field(default_factory=list)
    rewritten: bool = False
    """The last read started again from the top: the file was replaced or cut."""
    _pending: bytes = field(default=b"", repr=False)
    _inode: int | None = field(default=None, repr=False)

    @property
    def torn(self) -> bool:
        """A partial last line is waiting for the rest of it."""
        return bool(self._pending.strip())

    def read_new(self) -> list[dict[str, Any]]:
        self.rewritten = False
        try:
            with self.path.open("rb") as handle:
                stat = os.fstat(handle.fileno())
                if self._inode is not None and (
                    stat.st_ino != self._inode or stat.st_size < self.offset
                ):
                    self.rewritten = True
                    self.offset, self.line_number, self._pending = 0, 0, b""
                self._inode = stat.st_ino
                if stat.st_size == self.offset:
                    return []
                handle.seek(self.offset)
                data = handle.read()
        except FileNotFoundError:
            return []
        *lines, self._pending = data.split(b"\n")
        self.offset += len(data) - len(self._pending)
        records = []
        for line in lines:
            self.line_number += 1
            record = parse_line(line)
            if record is not None:
                records.append(record)
            elif line.strip():
                self.bad_lines.append(self.line_number)
        return records
