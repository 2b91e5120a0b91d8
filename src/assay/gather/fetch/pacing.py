"""Per-domain pacing and the global concurrency cap.

Why this shape: politeness is per domain, throughput is across domains. Each registrable
domain has a FIFO lock held for the whole exchange (so one domain sees at most one request
of ours at a time, in arrival order) and the monotonic time its last exchange *ended*; a
request to that domain sleeps until ``last end + interval``. Counting from the end means the
domain always gets the full interval of quiet, even after a slow response, and the gap is
visible as such on the server's side. Only after that wait does a request take a slot of the
global semaphore, so waiting out one domain's interval never blocks other domains.

A slot may be charged to a fetch's deadline (a ``Budget``). Queueing behind our own earlier
requests (the domain's lock, the global cap, the shared gate) is not the host's doing and
extends the budget, so many pages queued on one host do not all time out. The interval
itself (the host's Crawl-delay, or our default) is the cost of asking that host: it counts,
and when it would outlast what the budget has left the slot raises ``PacingOverrun`` at
once instead of sleeping: a Crawl-delay of 20 s cannot stretch a 10 s fetch to 80 s.

Each Fetcher paces on its own unless it is made inside ``shared_pacing()``: then its
Pacer uses the event loop's domain table, common to every such Fetcher, so concurrent runs
(``assay batch`` runs its questions in that scope) pace each domain together. Processes pace
together through a ``DomainGate`` installed with ``use_domain_gate`` (``assay worker``
installs the Redis one): it is entered after the local wait, inside the domain's lock.
"""

from __future__ import annotations

import asyncio
import time
import weakref
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import AbstractAsyncContextManager, asynccontextmanager, contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Protocol

from assay.urls import registrable_domain


@dataclass
class _Host:
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    last_end: float | None = None
    delay: float = 0.0  # the host's robots.txt Crawl-delay, if any


class Budget(Protocol):
    """What a slot's waits are charged to: a fetch's deadline (``exchange.Deadline``)."""

    def extend(self, waited: float) -> None: ...

    def remaining(self) -> float: ...


class PacingOverrun(Exception):
    """The host's interval would outlast the fetch's deadline; nothing was sent."""

    def __init__(self, wait: float, interval: float) -> None:
        super().__init__(f"{wait:.1f} s to wait for a {interval:g} s interval")
        self.wait = wait
        self.interval = interval


class DomainGate(Protocol):
    """Pacing shared with other processes: hold ``domain`` for one exchange.

    Entering waits until the domain has had ``interval`` seconds of quiet since any holder
    (in any process) left; it yields the seconds spent waiting.
    """

    def hold(self, domain: str, interval: float) -> AbstractAsyncContextManager[float]: ...


_gate: list[DomainGate] = []
_loop_tables: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, dict[str, _Host]] = (
    weakref.WeakKeyDictionary()
)


_sharing: ContextVar[bool] = ContextVar("assay_shared_pacing", default=False)


@contextmanager
def shared_pacing() -> Iterator[None]:
    """Fetchers made in this context (and its asyncio tasks) pace domains together."""
    token = _sharing.set(True)
    try:
        yield
    finally:
        _sharing.reset(token)


def pacing_is_shared() -> bool:
    return _sharing.get()


def use_domain_gate(gate: DomainGate | None) -> None:
    """Pace every later request of this process through ``gate`` too (None: this process only)."""
    _gate[:] = [gate] if gate is not None else []


class Pacer:
    """Hands out request slots: ≥ interval of quiet per domain, ≤ max_concurrency at once.

    ``shared``: the domain table is the event loop's, common to every shared Pacer in it.
    """

    def __init__(
        self,
        interval: float,
        max_concurrency: int,
        *,
        clock: Callable[[], float] = time.monotonic,
        shared: bool = False,
    ) -> None:
        self.interval = interval
        self._clock = clock
        self._own: dict[str, _Host] = {}
        self._shared = shared
        self._slots = asyncio.Semaphore(max_concurrency)

    def _table(self) -> dict[str, _Host]:
        if not self._shared:
            return self._own
        loop = asyncio.get_running_loop()
        return _loop_tables.setdefault(loop, {})

    def _host(self, host: str) -> _Host:
        return self._table().setdefault(registrable_domain(host), _Host())

    def set_crawl_delay(self, host: str, seconds: float) -> None:
        """Honour a robots.txt Crawl-delay: the host's interval becomes the larger of the two."""
        state = self._host(host)
        state.delay = max(state.delay, seconds)

    def interval_for(self, host: str) -> float:
        return max(self.interval, self._host(host).delay)

    @asynccontextmanager
    async def slot(self, host: str, budget: Budget | None = None) -> AsyncIterator[float]:
        """Hold the right to send one request to ``host``; yields the seconds spent waiting.

        The request should be sent and read inside the ``async with``; the next request to
        the host waits ``interval`` from the moment this block is left. With a ``budget``,
        the waits are charged to it as the module docstring says (``PacingOverrun``).
        """
        state = self._host(host)
        asked = self._clock()
        async with state.lock:
            self._queued(budget, asked)
            if state.last_end is not None:
                interval = self.interval_for(host)
                wait = state.last_end + interval - self._clock()
                if wait > 0:
                    if budget is not None and wait > budget.remaining():
                        raise PacingOverrun(wait, interval)
                    await asyncio.sleep(wait)
            paced = self._clock()
            async with self._shared_gate(host), self._slots:
                self._queued(budget, paced)
                try:
                    yield self._clock() - asked
                finally:
                    state.last_end = self._clock()

    def _queued(self, budget: Budget | None, since: float) -> None:
        if budget is not None:
            budget.extend(self._clock() - since)

    def _shared_gate(self, host: str) -> AbstractAsyncContextManager[object]:
        if not _gate:
            return _no_gate()
        return _gate[0].hold(registrable_domain(host), self.interval_for(host))


@asynccontextmanager
async def _no_gate() -> AsyncIterator[float]:
    yield 0.0
