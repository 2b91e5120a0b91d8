"""What a user hands assay directly, checked at the boundary: topics and named files.

Why one module: every entry point (CLI, API, MCP, batch) takes a topic or a question, and
many read a file a user named (a roster, a ``$file:`` key reference, config.toml); each
would otherwise re-invent the checks, and some did not make them at all. An empty topic
ran a whole pipeline to ``done``; a roster that was a symlink to ``/dev/zero`` was read
until memory ran out. Here a topic must hold something to research, and a named file must
be a regular file no larger than its cap; both failures are one-line ``UserError``s.
"""

from __future__ import annotations

import os
import stat
import unicodedata
from pathlib import Path

from assay.errors import BadInputError, UserError

CONFIG_FILE_LIMIT = 1_000_000
"""Bytes: a roster, config.toml or keys.json is a few KB; a megabyte is not a config."""
SECRET_FILE_LIMIT = 64_000
"""Bytes: a ``$file:`` reference holds one key (even a PEM key is a few KB)."""
_CHUNK = 65_536


def is_blank(text: str) -> bool:
    """Whether ``text`` has nothing to read: only spaces, control or invisible characters."""
    return all(c.isspace() or unicodedata.category(c) in ("Cc", "Cf", "Zs") for c in text)


def require_topic(topic: str, what: str = "topic") -> str:
    """``topic`` unchanged, or ``BadInputError`` when it is empty or only whitespace.

    ``start_run`` calls it for every protocol, before a run directory exists; an API or
    MCP front end can call it first to refuse a request before starting anything.
    """
    if is_blank(topic):
        raise BadInputError(f"the {what} is empty: give a question or topic to research")
    return topic


def read_user_bytes(
    path: Path, *, limit: int, label: str, error: type[UserError] = BadInputError
) -> bytes:
    """The bytes of the regular file ``path``, at most ``limit``; ``error`` otherwise.

    Devices, FIFOs and folders are refused before anything is read (``O_NONBLOCK``: opening
    a FIFO does not wait for a writer), and at most ``limit + 1`` bytes are ever read, so a
    file that grows while it is read cannot make this read more.
    """
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except OSError as exc:
        raise error(f"{label}: {exc.strerror or exc}") from None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise error(f"{label}: not a regular file (a device, FIFO or folder)")
        data = bytearray()
        while len(data) <= limit:
            chunk = os.read(fd, min(_CHUNK, limit + 1 - len(data)))
            if not chunk:
                break
            data += chunk
    except OSError as exc:
        raise error(f"{label}: {exc.strerror or exc}") from None
    finally:
        os.close(fd)
    if len(data) > limit:
        raise error(f"{label}: larger than {limit:,} bytes, too large to be read")
    return bytes(data)


def read_user_text(
    path: Path, *, limit: int, label: str, error: type[UserError] = BadInputError
) -> str:
    """``read_user_bytes`` decoded as UTF-8; a file that is not UTF-8 is ``error`` too."""
    data = read_user_bytes(path, limit=limit, label=label, error=error)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise error(f"{label}: not a text file (not UTF-8)") from None
