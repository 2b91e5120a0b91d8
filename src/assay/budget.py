"""Per-run budgets: tokens, model calls, fetches and wall time.

A budget is asked *before* work starts and told *after* tokens are spent:

- ``charge_call()`` and ``charge_fetch()`` ask permission for one more model call or fetch:
  they raise ``BudgetExhausted`` when any budget is already spent or this one would go over
  its cap, and count it otherwise;
- ``charge_tokens()`` records tokens a call consumed; it never raises (the tokens are spent
  already), and the next ``check()``, ``charge_call()`` or ``charge_fetch()`` stops the run;
- ``check()`` raises when any budget is spent; ``remaining_time()`` bounds timeouts.

So a run overshoots a token budget by at most one call, and nothing loops forever: every
model call and every fetch passes through here. The clock is injectable for tests.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from assay.errors import BudgetExhausted

if TYPE_CHECKING:
    from assay.config import Settings

Clock = Callable[[], float]


@dataclass(frozen=True)
class BudgetSpent:
    """What a budget has counted so far (for run.json and the final reason)."""

    tokens: int
    model_calls: int
    fetches: int
    elapsed: float


class Budget:
    """The limits of one run; ``None`` for a limit means unlimited."""

    def __init__(
        self,
        *,
        tokens: int | None = None,
        model_calls: int | None = None,
        fetches: int | None = None,
        time_limit: float | None = None,
        clock: Clock = time.monotonic,
    ) -> None:
        for name, value in (("tokens", tokens), ("model_calls", model_calls), ("fetches", fetches)):
            if value is not None and value < 1:
                raise ValueError(f"budget {name} must be at least 1, got {value}")
        if time_limit is not None and time_limit <= 0:
            raise ValueError(f"budget time must be positive, got {time_limit}")
        self.tokens = tokens
        self.model_calls = model_calls
        self.fetches = fetches
        self.time_limit = time_limit
        self._clock = clock
        self._started = clock()
        self._lock = threading.Lock()
        self._tokens_used = 0
        self._calls_used = 0
        self._fetches_used = 0

    @classmethod
    def from_settings(cls, settings: Settings, *, clock: Clock = time.monotonic) -> Budget:
        """The budget the ``budget_*`` settings describe; the clock starts now."""
        return cls(
            tokens=settings.budget_tokens,
            model_calls=settings.budget_model_calls,
            fetches=settings.budget_fetches,
            time_limit=settings.budget_time,
            clock=clock,
        )

    # -- reading ------------------------------------------------------------------------

    def elapsed(self) -> float:
        return max(0.0, self._clock() - self._started)

    def remaining_time(self) -> float | None:
        """Seconds of wall time left (never negative), or None when time is unlimited."""
        if self.time_limit is None:
            return None
        return max(0.0, self.time_limit - self.elapsed())

    def remaining_tokens(self) -> int | None:
        if self.tokens is None:
            return None
        return max(0, self.tokens - self._tokens_used)

    def spent(self) -> BudgetSpent:
        with self._lock:
            return BudgetSpent(
                self._tokens_used, self._calls_used, self._fetches_used, self.elapsed()
            )

    def exhausted_reason(self) -> str | None:
        """Why the run must stop now, or None while every budget has room."""
        with self._lock:
            return self._reason()

    def _reason(self) -> str | None:
        if self.tokens is not None and self._tokens_used >= self.tokens:
            calls = _count(self._calls_used, "call")
            return (
                f"token budget of {self.tokens:,} exhausted after {calls}"
                f" ({self._tokens_used:,} tokens used)"
            )
        if self.model_calls is not None and self._calls_used >= self.model_calls:
            return f"model-call budget of {self.model_calls:,} exhausted"
        if self.fetches is not None and self._fetches_used >= self.fetches:
            return f"fetch budget of {self.fetches:,} exhausted"
        if self.time_limit is not None and self.elapsed() >= self.time_limit:
            return (
                f"time budget of {_seconds(self.time_limit)} exhausted after "
                f"{_seconds(self.elapsed())}"
            )
        return None

    # -- spending -----------------------------------------------------------------------

    def check(self) -> None:
        """Raise ``BudgetExhausted`` when any budget is spent."""
        reason = self.exhausted_reason()
        if reason is not None:
            raise BudgetExhausted(reason)

    def charge_call(self) -> None:
        """Count one model call, or raise when it may not start."""
        with self._lock:
            reason = self._reason()
            if reason is not None:
                raise BudgetExhausted(reason)
            self._calls_used += 1

    def charge_fetch(self) -> None:
        """Count one fetch, or raise when it may not start."""
        with self._lock:
            reason = self._reason()
            if reason is not None:
                raise BudgetExhausted(reason)
            self._fetches_used += 1

    def charge_tokens(self, input_tokens: int, output_tokens: int = 0) -> None:
        """Record tokens a call consumed; never raises (see the module docstring)."""
        if input_tokens < 0 or output_tokens < 0:
            raise ValueError("token counts cannot be negative")
        with self._lock:
            self._tokens_used += input_tokens + output_tokens

    def cap_timeout(self, timeout: float) -> float:
        """``timeout`` shortened to the wall time left; raises when none is left."""
        self.check()
        left = self.remaining_time()
        return timeout if left is None else min(timeout, left)


def _count(n: int, noun: str) -> str:
    return f"{n:,} {noun}" + ("" if n == 1 else "s")


def _seconds(value: float) -> str:
    return f"{value:,.0f} s" if value >= 10 else f"{value:.1f} s"
