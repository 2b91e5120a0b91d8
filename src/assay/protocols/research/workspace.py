"""Code-agent mode: a local folder replaces the web (grepWorkspace, listWorkspaceDir, readFile).

Every path stays inside the workspace (symlinks out of it are refused), hidden and
binary files are skipped, and a file read becomes a snapshot and a source exactly like a
web page, with a ``workspace://<relative path>`` URL.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from assay.errors import BadInputError, UnsafePathError
from assay.store.eventlog import utc_now
from assay.store.sources import SourceLedger, SourceRecord

WORKSPACE_SCHEME = "workspace://"
MAX_FILE_BYTES = 1_000_000
MAX_HITS = 200
"""Files one grep reports (a broad spelling must not hide the deeper folders)."""
LINES_PER_FILE = 20
MAX_LINE = 400
_SKIP_DIRS = {".git", ".hg", ".svn", "node_modules", "__pycache__", ".venv", "venv", ".tox"}


@dataclass(frozen=True)
class GrepHit:
    """One line a grep found: its file (relative to the workspace), line number and text."""

    path: str
    line: int
    text: str


@dataclass(frozen=True)
class Workspace:
    root: Path

    @classmethod
    def open(cls, path: Path) -> Workspace:
        root = path.expanduser().resolve()
        if not root.is_dir():
            raise BadInputError(f"workspace {path} is not a folder")
        return cls(root)

    def resolve(self, relative: str) -> Path:
        candidate = (self.root / relative.removeprefix(WORKSPACE_SCHEME)).resolve()
        if not candidate.is_relative_to(self.root):
            raise UnsafePathError(f"{relative!r} is outside the workspace")
        return candidate

    def files(self) -> list[Path]:
        found = []
        for path in sorted(self.root.rglob("*")):
            parts = path.relative_to(self.root).parts
            if any(p.startswith(".") or p in _SKIP_DIRS for p in parts):
                continue
            if path.is_file() and path.resolve().is_relative_to(self.root):
                found.append(path)
        return found

    def list_dir(self, relative: str = ".") -> list[str]:
        directory = self.resolve(relative)
        if not directory.is_dir():
            return []
        return sorted(
            f"{p.relative_to(self.root)}{'/' if p.is_dir() else ''}"
            for p in directory.iterdir()
            if not p.name.startswith(".") and p.name not in _SKIP_DIRS
        )

    def grep(self, pattern: str) -> list[GrepHit]:
        """The lines that contain ``pattern`` (case-blind text; ``a|b`` finds either; a
        spelling of ``SHORT`` letters or fewer must end a word or a name's part, so "key"
        finds ``api_key``, ``keys`` and ``keyStore``, not ``keywords``), at most
        ``LINES_PER_FILE`` per file and ``MAX_HITS`` files. A line longer than
        ``MAX_LINE`` (minified code, a data file's one line) is no place a reader looks."""
        spellings = [p.strip() for p in pattern.split("|") if p.strip()]
        if not spellings:
            return []
        needle = re.compile("|".join(map(_spelled, spellings)))
        hits: list[GrepHit] = []
        files = 0
        for path in self.files():
            text = _text(path)
            if text is None:
                continue
            relative = str(path.relative_to(self.root))
            found = [
                GrepHit(relative, number, line.strip()[:160])
                for number, line in enumerate(text.splitlines(), start=1)
                if len(line) <= MAX_LINE and needle.search(line)
            ][:LINES_PER_FILE]
            hits += found
            files += bool(found)
            if files >= MAX_HITS:
                break
        return hits

    def read(self, relative: str, ledger: SourceLedger) -> tuple[SourceRecord, str] | None:
        url = f"{WORKSPACE_SCHEME}{relative.removeprefix(WORKSPACE_SCHEME)}"
        existing = ledger.by_url(url)
        if existing is not None:
            return existing, ledger.read_snapshot(existing)
        path = self.resolve(relative)
        text = _text(path) if path.is_file() else None
        if not text:
            return None
        record = ledger.add(
            url=url,
            final_url=url,
            title=str(path.relative_to(self.root)),
            text=text,
            content_type="text/plain",
            accessed_at=utc_now(),
        )
        return record, text


SHORT = 4


def _spelled(spelling: str) -> str:
    """The regex of one spelling: literal and case-blind, and for a short one, a word or
    a name's part of its own (``api_key``, ``apiKey``, ``keys``; not ``keywords``,
    ``monkey``)."""
    quoted = re.escape(spelling)
    if len(spelling) > SHORT:
        return f"(?i:{quoted})"
    # its own word or name part: after a non-letter, or capitalised after a lower-case
    # letter (``apiKey``); then a non-letter, a plural, or the next part's capital
    start = f"(?:(?<![A-Za-z])(?i:{quoted})|(?<=[a-z]){re.escape(spelling.capitalize())})"
    return f"{start}(?i:s|es)?(?![a-z])"


def _text(path: Path) -> str | None:
    try:
        with path.open("rb") as handle:  # never more than the cap, however large the file
            data = handle.read(MAX_FILE_BYTES)
    except OSError:
        return None
    if b"\x00" in data[:4096]:
        return None
    return data.decode("utf-8", errors="replace")
