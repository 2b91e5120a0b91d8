"""Per-domain pacing and the global concurrency cap.

Why this shape: politeness is per host, throughput is across hosts. Each host has a FIFO
lock held for the whole exchange (so one host sees at most one request of ours at a time,
in arrival order) and the monotonic time its last exchange *ended*; a request to that host
sleeps until ``last end + interval``. Counting from the end means the host always gets the
full interval of quiet, even after a slow response, and the gap is visible as such on the
server's side. Only after that wait does a request take a slot of the global semaphore, so
waiting out one host's interval never blocks other hosts.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field


@dataclass
class _Host:
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    last_end: float | None = None
    delay: float = 0.0  # the host's robots.txt Crawl-delay, if any


class Pacer:
    """Hands out request slots: ≥ interval of quiet per host, ≤ max_concurrency at once."""

    def __init__(
        self,
        interval: float,
        max_concurrency: int,
        *,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.interval = interval
        self._clock = clock
        self._hosts: dict[str, _Host] = {}
        self._slots = asyncio.Semaphore(max_concurrency)

    def _host(self, host: str) -> _Host:
        return self._hosts.setdefault(host.lower(), _Host())

    def set_crawl_delay(self, host: str, seconds: float) -> None:
        """Honour a robots.txt Crawl-delay: the host's interval becomes the larger of the two."""
        state = self._host(host)
        state.delay = max(state.delay, seconds)

    def interval_for(self, host: str) -> float:
        return max(self.interval, self._host(host).delay)

    @asynccontextmanager
    async def slot(self, host: str) -> AsyncIterator[float]:
        """Hold the right to send one request to ``host``; yields the seconds spent waiting.

        The request should be sent and read inside the ``async with``; the next request to
        the host waits ``interval`` from the moment this block is left.
        """
        state = self._host(host)
        asked = self._clock()
        async with state.lock:
            if state.last_end is not None:
                wait = state.last_end + self.interval_for(host) - self._clock()
                if wait > 0:
                    await asyncio.sleep(wait)
            async with self._slots:
                try:
                    yield self._clock() - asked
                finally:
                    state.last_end = self._clock()
