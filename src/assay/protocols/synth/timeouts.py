"""Timeouts with POKE: a silent agent is poked, then blocked, and the panel goes on.

At ``poke_after`` seconds an agent that has not reported its phase gets the spec's POKE
text: an LLM agent has it injected into its conversation (its pending request is dropped
and the conversation re-sent with the POKE as the latest user turn), an external command
gets the contract's POKE signal, ``SIGUSR1``, which it handles or never notices (see
``command.py``: it never kills), and may answer ``[BLOCK] reason`` (blocked at once, with
its reason). At ``block_after`` seconds the agent is ``[BLOCK]``ed and
the log says ``<AGENT> unresponsive after POKE, proceeding with available agents``.

The timers time the agent's silence only (``Clock``): while assay itself works for the
agent (searching and fetching with its tool, recording and verifying its claims, waiting
for the shared ledger) the clock is paused, and every output or progress of the agent
restarts it. A slow site never gets a healthy agent poked or blocked.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from typing import Protocol, TypeVar

from assay.claims.judge import Judge, Verdict, WholeSourceJudge
from assay.errors import AssayError, BudgetExhausted, ProviderError, RunCancelled
from assay.events import Event, Signal

T = TypeVar("T")

POKE = """{agent} - MANAGER here. POKE: You haven't reported Phase {phase} results.
Please complete your search and post findings now.
If blocked, signal [BLOCK] with reason."""


def poke_text(agent: str, phase: int) -> str:
    return POKE.format(agent=agent, phase=phase)


def unresponsive(agent: str) -> str:
    return f"{agent} unresponsive after POKE, proceeding with available agents"


class AgentBlocked(ProviderError):
    """The agent itself signalled [BLOCK]; the message is its reason."""


@dataclass(frozen=True)
class Timeouts:
    poke_after: float = 60.0
    block_after: float = 120.0

    def __post_init__(self) -> None:
        if not 0 < self.poke_after <= self.block_after:
            raise ValueError("timeouts need 0 < poke_after <= block_after")


class Pokeable(Protocol):
    def poke(self, text: str) -> None: ...


class Clock:
    """How long an agent has been silent: paused while assay works for it."""

    def __init__(self) -> None:
        self._paused = 0
        self._last = time.monotonic()

    def beat(self) -> None:
        """The agent produced output or progress: its silence starts again."""
        self._last = time.monotonic()

    def silent_for(self) -> float:
        return 0.0 if self._paused else time.monotonic() - self._last

    @contextlib.asynccontextmanager
    async def agent(self) -> AsyncIterator[None]:
        """The agent's own work inside assay's (its judge reading evidence): timed again."""
        paused, self._paused = self._paused, 0
        self.beat()
        try:
            yield
        finally:
            self._paused += paused
            self.beat()

    @contextlib.asynccontextmanager
    async def assay(self) -> AsyncIterator[None]:
        """Assay's own work for the agent: not the agent's silence."""
        self._paused += 1
        try:
            yield
        finally:
            self._paused -= 1
            self.beat()


async def supervise(
    work: Awaitable[T],
    *,
    agent: str,
    phase: int,
    target: Pokeable,
    timeouts: Timeouts,
    emit: Callable[[Event], object],
    clock: Clock | None = None,
) -> T | None:
    """``work``'s result, or None when the agent was blocked (the signal says why).
    ``clock`` measures the agent's silence (a fresh one: all of the time counts)."""
    clock = clock or Clock()
    clock.beat()
    task = asyncio.ensure_future(work)
    poked = False
    try:
        while True:
            limit = timeouts.block_after if poked else timeouts.poke_after
            remaining = limit - clock.silent_for()
            if remaining > 0:
                done, _ = await asyncio.wait({task}, timeout=remaining)
                if done:
                    return task.result()
                continue
            if poked:
                await _cancel(task)
                emit(Signal(signal="[BLOCK]", agent=agent, detail=unresponsive(agent)))
                return None
            text = poke_text(agent, phase)
            emit(Signal(signal="[POKE]", agent=agent, detail=text))
            target.poke(text)
            poked = True
    except (BudgetExhausted, RunCancelled):
        raise
    except AssayError as exc:
        why = blocked_detail(agent, phase, exc)
        emit(Signal(signal="[BLOCK]", agent=agent, detail=why))
        return None
    except asyncio.CancelledError:
        await _cancel(task)
        raise


def blocked_detail(agent: str, phase: int, error: AssayError) -> str:
    """Why the agent is blocked: its own ``[BLOCK]`` reason, or the failure."""
    if isinstance(error, AgentBlocked):
        return f"{agent} signalled [BLOCK]: {error}"
    return f"{agent} failed in phase {phase}: {error}"


async def _cancel(task: asyncio.Future[T]) -> None:
    task.cancel()
    with contextlib.suppress(asyncio.CancelledError, Exception):
        await task


class TimedJudge:
    """A checker's judge whose calls are the agent's own time on its clock."""

    def __init__(self, judge: Judge, clock: Clock) -> None:
        self._judge = judge
        self._clock = clock
        self.name = judge.name
        self.whole_source = isinstance(judge, WholeSourceJudge) and judge.whole_source

    async def judge(self, claim: str, evidence: str) -> Verdict:
        async with self._clock.agent():
            return await self._judge.judge(claim, evidence)
