"""The secrets this process knows, and their removal from everything assay writes or prints.

Why one process-wide registry: a key reaches assay in several ways (``assay keys set``, a
``[keys]`` reference, the environment, an explicit argument) and leaks in many (a provider
echoing it in a 401 message that becomes a run's ``reason``, a report, a line on stderr).
Whoever resolves a key registers it here; the store's write primitives (``store.atomic``,
``store.jsonl``) and the CLI's printing call ``redact``, so no writer has to remember to.
Text that shows a program's insides (``--debug``'s traceback) also gets
``redact_credentials``, which masks a credential field's value even when it is not known.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Iterable

MASK = "****"
MIN_SECRET_LENGTH = 6  # shorter values are too common to remove from text safely

_lock = threading.Lock()
_secrets: tuple[str, ...] = ()  # longest first, so a key that contains another goes whole
_CREDENTIAL_FIELD = re.compile(
    r"(?i)\b((?:proxy-)?authorization|x-api-key|x-goog-api-key|api[-_]key)"  # the field
    r"(['\"]?\s*[:=]\s*['\"]?)"  # header colon, keyword or dict separator, quotes
    r"((?:bearer|basic|token)\s+)?"  # an Authorization scheme is kept, its credential not
    r"[^\s'\",;)}\]]+"
)


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
    return mask(text, _secrets)


def mask(text: str, secrets: Iterable[str]) -> str:
    """``text`` with each of ``secrets`` (longest first, so a key holding another goes
    whole) replaced by a mask: for values known where the registry may not hold them yet
    (a key store's values, the one key a provider call was given)."""
    for secret in sorted((s for s in secrets if s), key=len, reverse=True):
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


def redact_credentials(text: str) -> str:
    """``redact``, and the value of every credential field (``Authorization: Bearer …``,
    ``x-api-key: …``, ``api_key='…'``) masked, whether or not its secret is registered."""
    return _CREDENTIAL_FIELD.sub(lambda m: f"{m[1]}{m[2]}{m[3] or ''}{MASK}", redact(text))
