"""Whole-file replacement that a crash cannot leave half-written: temp file, fsync, rename.

Every file written here passes ``redact`` first, so a key that slipped into a run's text
(a provider's 401 message in run.json's ``reason``, a report) never reaches the disk; only
the key store itself writes with ``secret=True``.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path

from assay.redact import redact, redact_bytes


def atomic_write_text(
    path: Path, text: str, *, mode: int | None = None, fsync: bool = True, secret: bool = False
) -> None:
    """Replace ``path`` with ``text`` in one step; readers see the old file or the new one."""
    text = text if secret else redact(text)
    atomic_write_bytes(path, text.encode("utf-8"), mode=mode, fsync=fsync, secret=True)


def atomic_write_bytes(
    path: Path, data: bytes, *, mode: int | None = None, fsync: bool = True, secret: bool = False
) -> None:
    """``atomic_write_text`` for bytes; ``secret=True`` writes them unredacted (keys.json)."""
    data = data if secret else redact_bytes(data)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, temp_name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        if mode is not None:
            os.fchmod(fd, mode)
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            if fsync:
                os.fsync(handle.fileno())
        Path(temp_name).replace(path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            Path(temp_name).unlink()
        raise
    if fsync:
        _fsync_directory(path.parent)


def _fsync_directory(directory: Path) -> None:
    fd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
