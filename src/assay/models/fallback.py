"""Try the model, else the rules: one runner for every step that has both.

A ``Step`` is one thing a protocol does that a model may do well and code rules can do
adequately (plan the directions, name the next hop, write the themes). Both ways are an
``Implementation``: a no-argument coroutine function that returns the step's result (the
step's input is in its closure). ``Step.run`` calls the model's; when it fails — every
reply was invalid (``InvalidOutput``), no reply came in time (``ModelTimeout``), or its
answer was valid but unusable (``Unusable``) — the failure is recorded as a
``step.fallback`` event (the step's name, the model, the kind of failure and the reason)
and the rules' implementation decides. Like pydantic-ai's ``FallbackModel``, the failed
attempt is kept: in the run's log, and in the ``Ran`` the caller gets back, so a site can
also say it in its report.

A step that deliberately has no rules (the model's answer is never replaced by a rule's:
``answers/model_step.py``) passes ``NO_RULES``; its ``Ran.value`` is then ``None`` after a
failure, and the event says ``fallback: none``.

Events go to the sink of the current context (``recording_fallbacks``); a protocol run
sets the run's event log as the sink (``protocols/runner.execute``), and context
variables follow asyncio tasks, so concurrent runs record in their own logs.
"""

from __future__ import annotations

import functools
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Generic, Literal, Protocol, TypeVar

from assay.errors import ProviderError
from assay.events import Event, StepFallback
from assay.models.base import Model, ModelTimeout
from assay.models.call import InvalidOutput

R = TypeVar("R")
R_co = TypeVar("R_co", covariant=True)

_REASON_CHARS = 240


class Implementation(Protocol[R_co]):
    """One way to do a step, the model's or the rules': called with nothing."""

    def __call__(self) -> Awaitable[R_co]: ...


class Unusable(ProviderError):
    """The model's answer passed validation but cannot be used (raised by a model
    implementation, so the rules decide and the reason is recorded)."""


async def no_rules() -> None:
    """The rules of a step that has none on purpose: the result is ``None``."""
    return None


NO_RULES: Implementation[None] = no_rules

FellBack = Callable[[Event], object]
_sink: ContextVar[FellBack | None] = ContextVar("assay_fallback_sink", default=None)


@contextmanager
def recording_fallbacks(sink: FellBack) -> Iterator[None]:
    """Send every ``step.fallback`` event of this context to ``sink``."""
    token = _sink.set(sink)
    try:
        yield
    finally:
        _sink.reset(token)


@dataclass(frozen=True)
class Failure:
    """A model attempt that failed: which step, which model, the kind and the reason."""

    step: str
    model: str
    kind: str
    reason: str
    error: ProviderError = field(compare=False, repr=False)

    def event(self, fallback: Literal["rules", "none"]) -> StepFallback:
        return StepFallback(
            step=self.step, model=self.model, kind=self.kind, reason=self.reason,
            fallback=fallback,
        )  # fmt: skip


@dataclass(frozen=True)
class Ran(Generic[R]):
    """A step's result, who gave it, and the failed model attempt when the rules did."""

    value: R
    by: Literal["model", "rules", "none"]
    failure: Failure | None = None


@dataclass(frozen=True)
class Step(Generic[R]):
    """A step with its two implementations; ``model`` is None when the run has none."""

    name: str
    model: Implementation[R] | None
    rules: Implementation[R]
    model_name: str = "model"

    @classmethod
    def of(
        cls,
        name: str,
        model: Model | None,
        by_model: Callable[[Model], Awaitable[R]],
        rules: Implementation[R],
    ) -> Step[R]:
        """The step ``name`` with ``by_model`` bound to ``model`` (no model: rules only)."""
        if model is None:
            return cls(name, None, rules)
        return cls(name, functools.partial(by_model, model), rules, model.name)

    async def run(self) -> Ran[R]:
        """The model's result, else (recording why) the rules'. A rules implementation
        that raises is a real error: it propagates, the model's failure noted on it."""
        if self.model is None:
            return Ran(await self.rules(), "rules")
        try:
            return Ran(await self.model(), "model")
        except (InvalidOutput, ModelTimeout, Unusable) as exc:
            failure = Failure(self.name, self.model_name, type(exc).__name__, _reason(exc), exc)
        by: Literal["rules", "none"] = "none" if self.rules is NO_RULES else "rules"
        sink = _sink.get()
        if sink is not None:
            sink(failure.event(by))
        try:
            value = await self.rules()
        except Exception as exc:
            exc.add_note(f"{self.name}: the rules failed after the model did ({failure.reason})")
            raise
        return Ran(value, by, failure)


def _reason(error: ProviderError) -> str:
    """The failure's first line, short enough for a log line and a report's warning."""
    return (error.message.splitlines() or [type(error).__name__])[0][:_REASON_CHARS]
