"""Timeouts with POKE: a silent agent is poked, then blocked, and the panel goes on.

At ``poke_after`` seconds an agent that has not reported its phase gets the spec's POKE
text: an LLM agent has it injected into its conversation (its pending request is dropped
and the conversation re-sent with the POKE as the latest user turn), an external command
gets ``SIGUSR1`` (a process cannot be handed a second stdin; a command that ignores the
signal is ended at the block). At ``block_after`` seconds the agent is ``[BLOCK]``ed and
the log says ``<AGENT> unresponsive after POKE, proceeding with available agents``.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Protocol, TypeVar

from assay.errors import AssayError, BudgetExhausted, RunCancelled
from assay.events import Event, Signal

T = TypeVar("T")

POKE = """{agent} - MANAGER here. POKE: You haven't reported Phase {phase} results.
Please complete your search and post findings now.
If blocked, signal [BLOCK] with reason."""


def poke_text(agent: str, phase: int) -> str:
    return POKE.format(agent=agent, phase=phase)


def unresponsive(agent: str) -> str:
    return f"{agent} unresponsive after POKE, proceeding with available agents"


@dataclass(frozen=True)
class Timeouts:
    poke_after: float = 60.0
    block_after: float = 120.0

    def __post_init__(self) -> None:
        if not 0 < self.poke_after <= self.block_after:
            raise ValueError("timeouts need 0 < poke_after <= block_after")


class Pokeable(Protocol):
    def poke(self, text: str) -> None: ...


async def supervise(
    work: Awaitable[T],
    *,
    agent: str,
    phase: int,
    target: Pokeable,
    timeouts: Timeouts,
    emit: Callable[[Event], object],
) -> T | None:
    """``work``'s result, or None when the agent was blocked (the signal says why)."""
    task = asyncio.ensure_future(work)
    try:
        done, _ = await asyncio.wait({task}, timeout=timeouts.poke_after)
        if not done:
            text = poke_text(agent, phase)
            emit(Signal(signal="[POKE]", agent=agent, detail=text))
            target.poke(text)
            rest = timeouts.block_after - timeouts.poke_after
            done, _ = await asyncio.wait({task}, timeout=rest)
        if not done:
            await _cancel(task)
            emit(Signal(signal="[BLOCK]", agent=agent, detail=unresponsive(agent)))
            return None
        return task.result()
    except (BudgetExhausted, RunCancelled):
        raise
    except AssayError as exc:
        emit(
            Signal(signal="[BLOCK]", agent=agent, detail=f"{agent} failed in phase {phase}: {exc}")
        )
        return None
    except asyncio.CancelledError:
        await _cancel(task)
        raise


async def _cancel(task: asyncio.Future[T]) -> None:
    task.cancel()
    with contextlib.suppress(asyncio.CancelledError, Exception):
        await task
