"""The secrets this process knows, and their removal from everything assay writes or prints.

Why one process-wide registry: a key reaches assay in several ways (``assay keys set``, a
``[keys]`` reference, the environment, an explicit argument) and leaks in many (a provider
echoing it in a 401 message that becomes a run's ``reason``, a report, a line on stderr).
Whoever resolves a key registers it here; the store's write primitives (``store.atomic``,
``store.jsonl``) and the CLI's printing call ``redact``, so no writer has to remember to.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable

MASK = "****"
MIN_SECRET_LENGTH = 6  # shorter values are too common to remove from text safely

_lock = threading.Lock()
_secrets: tuple[str, ...] = ()  # longest first, so a key that contains another goes whole


def register_secrets(values: Iterable[str]) -> None:
    """Remember ``values`` as secrets for the rest of the process (short ones are ignored)."""
    global _secrets
    fresh = {v for v in values if len(v) >= MIN_SECRET_LENGTH}
    with _lock:
        if fresh <= set(_secrets):
            return
        _secrets = tuple(sorted(fresh | set(_secrets), key=len, reverse=True))


def forget_secrets() -> None:
    """Clear the registry (for tests that need a process without known secrets)."""
    global _secrets
    with _lock:
        _secrets = ()


def redact(text: str) -> str:
    """``text`` with every registered secret replaced by a mask."""
    for secret in _secrets:
        if secret in text:
            text = text.replace(secret, MASK)
    return text


def redact_bytes(data: bytes) -> bytes:
    """``redact`` for UTF-8 bytes (a secret is matched as its UTF-8 encoding)."""
    for secret in _secrets:
        encoded = secret.encode("utf-8")
        if encoded in data:
            data = data.replace(encoded, MASK.encode("utf-8"))
    return data
