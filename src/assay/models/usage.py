"""Token and cost accounting, per model call and per run.

Token counts are the endpoint's where it reports them; otherwise they are estimated from
the text (``assay.reading.tokens.estimate_tokens``) and the record says ``estimated=True``.
Cost is computed only where the model's profile has a price.

A ``UsageMeter`` adds calls up for a run and hands each call, with the new totals, to its
listeners. The run wires one listener that emits the ``usage`` event and updates
run.json::

    def on_usage(call: CallUsage, totals: UsageSummary) -> None:
        run.events.emit(call.to_event())
        run.info.usage = run.info.usage.model_copy(update=totals.as_dict())
        run.save_info()
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from assay.events import Usage
from assay.models.base import Reply, Request
from assay.models.profiles import ModelProfile
from assay.reading.tokens import estimate_tokens


@dataclass(frozen=True)
class CallUsage:
    """What one model request consumed."""

    model: str
    input_tokens: int
    output_tokens: int
    estimated: bool = False
    cost_usd: float | None = None
    seconds: float = 0.0

    def to_event(self) -> Usage:
        """The ``usage`` event for the run's log."""
        return Usage(
            model=self.model,
            input_tokens=self.input_tokens,
            output_tokens=self.output_tokens,
            estimated=self.estimated,
            cost_usd=self.cost_usd,
        )

    def __add__(self, other: CallUsage) -> CallUsage:
        return CallUsage(
            model=self.model,
            input_tokens=self.input_tokens + other.input_tokens,
            output_tokens=self.output_tokens + other.output_tokens,
            estimated=self.estimated or other.estimated,
            cost_usd=_add_cost(self.cost_usd, other.cost_usd),
            seconds=self.seconds + other.seconds,
        )


@dataclass(frozen=True)
class UsageSummary:
    """A run's totals; ``as_dict`` has the keys of run.json's ``UsageTotals``."""

    input_tokens: int = 0
    output_tokens: int = 0
    model_calls: int = 0
    cost_usd: float | None = None
    estimated: bool = False

    def as_dict(self) -> dict[str, Any]:
        return {
            "input_tokens": self.input_tokens,
            "output_tokens": self.output_tokens,
            "model_calls": self.model_calls,
            "cost_usd": self.cost_usd,
            "estimated": self.estimated,
        }


UsageListener = Callable[[CallUsage, UsageSummary], None]


@dataclass
class UsageMeter:
    """Adds up a run's model calls and tells each listener about every call."""

    listeners: list[UsageListener] = field(default_factory=list)
    _totals: UsageSummary = field(default_factory=UsageSummary)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    @property
    def totals(self) -> UsageSummary:
        return self._totals

    def add_listener(self, listener: UsageListener) -> None:
        self.listeners.append(listener)

    def record(self, call: CallUsage) -> UsageSummary:
        with self._lock:
            old = self._totals
            self._totals = UsageSummary(
                input_tokens=old.input_tokens + call.input_tokens,
                output_tokens=old.output_tokens + call.output_tokens,
                model_calls=old.model_calls + 1,
                cost_usd=_add_cost(old.cost_usd, call.cost_usd),
                estimated=old.estimated or call.estimated,
            )
            totals = self._totals
        for listener in list(self.listeners):
            listener(call, totals)
        return totals


def measure(
    model: str,
    profile: ModelProfile,
    request: Request,
    reply: Reply | None,
    seconds: float,
) -> CallUsage:
    """The usage of one request: reported counts where present, estimates otherwise.

    ``reply`` is None when the request failed or timed out: its input is estimated and its
    output counted as zero.
    """
    estimated = False
    input_tokens = reply.input_tokens if reply is not None else None
    output_tokens = reply.output_tokens if reply is not None else None
    if input_tokens is None:
        estimated = True
        input_tokens = estimate_request_tokens(request)
    if output_tokens is None:
        estimated = True
        output_tokens = estimate_tokens(reply.text) if reply is not None else 0
    return CallUsage(
        model=model,
        input_tokens=input_tokens,
        output_tokens=output_tokens,
        estimated=estimated,
        cost_usd=profile.cost(input_tokens, output_tokens),
        seconds=seconds,
    )


def estimate_request_tokens(request: Request) -> int:
    """An estimate of the prompt's size: system, turns and (for native modes) the schema."""
    total = estimate_tokens(request.system) + 4 * len(request.messages)
    total += sum(estimate_tokens(message.content) for message in request.messages)
    if request.output is not None and request.mode != "prompted_json":
        total += estimate_tokens(str(request.output.json_schema))
    return total


def _add_cost(a: float | None, b: float | None) -> float | None:
    if a is None and b is None:
        return None
    return (a or 0.0) + (b or 0.0)
