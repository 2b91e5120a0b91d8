"""Signed queue messages: what a batch client may ask a worker for, and proof that it asked.

A queued message carries one argument, an envelope ``{"v": 1, "payload": TEXT, "sig": HEX}``:
``payload`` is a ``QueuedQuestion`` as JSON text and ``sig`` its HMAC-SHA256 under
``ASSAY_QUEUE_KEY``, a secret every worker and batch client reads from its own key store
(``assay keys set ASSAY_QUEUE_KEY``) or environment. The signature covers the exact text, so
nothing is re-serialised before checking it.

A ``QueuedQuestion`` holds only what a client may choose: the question, the protocol, the batch
it belongs to (an id, never a path), limits and a model name. Commands, files, endpoints, keys,
the fetch policy and the run store come from the worker's own configuration
(``settings_for``): a message cannot name any of them, so no message can make a worker run a
program, write where it chooses, or send the worker's keys to an address of its choosing.
"""

from __future__ import annotations

import hashlib
import hmac
from functools import cache
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError, field_validator

from assay.batch.jobs import BatchJob, Protocol
from assay.config import Settings
from assay.errors import BadInputError, ConfigError
from assay.keys import KeyStore

QUEUE_KEY = "ASSAY_QUEUE_KEY"
MIN_KEY_CHARS = 32
MAX_PAYLOAD_CHARS = 64_000
VERSION = 1
_CONTEXT = b"assay-queue-v1\n"  # a signature made for anything else never verifies here
LIMITS = ("budget_tokens", "budget_time", "budget_model_calls", "budget_fetches")
# What belongs to ``model`` in the worker's configuration, not to another model it allows.
_MODEL_TUNING = ("model_output_mode", "context_tokens", "model_max_tokens",
                 "model_price_input", "model_price_output")  # fmt: skip


class RejectedMessage(BadInputError):
    """A queue message a worker will not run: unsigned, forged, or not a queued question."""


def queue_key(settings: Settings) -> bytes:
    """The signing key, from the key store or the environment; a clear error when unset."""
    purpose = "signing queue messages (the same secret on every worker and batch client)"
    value = KeyStore(settings.home, settings.keys).require(QUEUE_KEY, purpose)
    if len(value) < MIN_KEY_CHARS:
        raise ConfigError(
            f"{QUEUE_KEY} is {len(value)} characters; use at least {MIN_KEY_CHARS} random ones "
            "(python -c 'import secrets; print(secrets.token_hex(32))')"
        )
    return value.encode("utf-8")


class QueuedJob(BatchJob):
    """A batch line as a message carries it: the known keys only, bounded."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    keywords: list[Annotated[str, Field(max_length=200)]] = Field(
        default_factory=list, max_length=20
    )
    urls: list[Annotated[str, Field(max_length=2000)]] = Field(default_factory=list, max_length=20)


class QueuedQuestion(BaseModel):
    """Everything a message may ask of a worker."""

    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False)

    batch: str = Field(pattern=r"^[0-9a-f]{16}$", description="where the worker keeps its rows")
    job: QueuedJob
    protocol: Protocol
    sources: int | None = Field(default=None, ge=1, le=20)
    max_directions: int = Field(default=2, ge=1, le=6)
    model: str | None = Field(default=None, min_length=1, max_length=200)
    limits: dict[str, float] = Field(default_factory=dict)

    @field_validator("limits")
    @classmethod
    def _limits_in_their_settings_ranges(cls, value: dict[str, float]) -> dict[str, float]:
        for name, number in value.items():
            if name not in LIMITS:
                raise ValueError(f"{name!r} is not a limit a message may set ({', '.join(LIMITS)})")
            try:
                _setting(name).validate_python(number)
            except ValidationError as exc:
                raise ValueError(f"{name}: {exc.errors()[0]['msg']}") from None
        return value

    def settings_for(self, worker: Settings) -> Settings:
        """The worker's settings with what this message may choose: its model, if the worker
        allows it, and limits that may only tighten the worker's own."""
        allowed = [m for m in (worker.model, *worker.queue_models) if m]
        if self.model is not None and self.model not in allowed:
            offered = ", ".join(allowed) or "none (the extractive engine)"
            raise BadInputError(
                f"model {self.model!r} is not one this worker runs (it offers: {offered}; "
                "add it to the worker's queue_models)"
            )
        update: dict[str, Any] = {}
        if self.model is not None and self.model != worker.model:
            update = {"model": self.model, **dict.fromkeys(_MODEL_TUNING)}
        for name, asked in self.limits.items():
            value = _setting(name).validate_python(asked)
            own = getattr(worker, name)
            update[name] = value if own is None else min(own, value)
        return worker.model_copy(update=update)


@cache
def _setting(name: str) -> TypeAdapter[Any]:
    """The type and range config.py gives the setting ``name`` (one owner for both)."""
    field = Settings.model_fields[name]
    return TypeAdapter(Annotated[field.annotation, field])  # type: ignore[arg-type]


def seal(question: QueuedQuestion, key: bytes) -> dict[str, Any]:
    """The envelope a client enqueues for ``question``."""
    payload = question.model_dump_json(exclude_defaults=True)
    return {"v": VERSION, "payload": payload, "sig": _signature(payload, key)}


def open_envelope(envelope: Any, key: bytes) -> QueuedQuestion:
    """The question an envelope carries, once its signature and its shape are checked."""
    if not isinstance(envelope, dict) or set(envelope) != {"v", "payload", "sig"}:
        raise RejectedMessage("not a signed assay envelope ({v, payload, sig})")
    payload, sig = envelope["payload"], envelope["sig"]
    if envelope["v"] != VERSION or not isinstance(payload, str) or not isinstance(sig, str):
        raise RejectedMessage(f"not a version {VERSION} envelope")
    if len(payload) > MAX_PAYLOAD_CHARS:
        raise RejectedMessage(f"payload over {MAX_PAYLOAD_CHARS} characters")
    if not hmac.compare_digest(sig.encode("utf-8", "replace"), _signature(payload, key).encode()):
        raise RejectedMessage(f"bad signature: forged, altered, or signed with another {QUEUE_KEY}")
    try:
        return QueuedQuestion.model_validate_json(payload)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(part) for part in first["loc"]) or "payload"
        raise RejectedMessage(
            f"signed, but not a queued question: {where}: {first['msg']}"
        ) from None


def _signature(payload: str, key: bytes) -> str:
    # surrogatepass: JSON text may hold a lone surrogate (an escaped one); it is signed as is
    text = payload.encode("utf-8", "surrogatepass")
    return hmac.new(key, _CONTEXT + text, hashlib.sha256).hexdigest()
