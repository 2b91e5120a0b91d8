"""Per-domain pacing across processes and hosts, through Redis.

For each registrable domain, a lease key (``SET NX PX``, renewed while held, so a killed
holder frees it within ``LEASE`` seconds) makes one exchange at a time across all workers,
and a ``last`` key holds when the last exchange ended, in Redis's clock (``TIME``), so
workers on hosts whose clocks differ still agree. A holder waits until ``last + interval``
before it sends: the same rule the in-process Pacer applies, now shared. Anyone who can write
to Redis can stop the queue altogether; a ``last`` that no worker could have written (in the
future, not a number) at least stalls nobody for longer than one interval.
"""

from __future__ import annotations

import asyncio
import contextlib
import math
import time
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import redis

LEASE = 5.0
POLL = 0.05
_RELEASE = """
if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) end
return 0
"""
_RENEW = """
if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('pexpire', KEYS[1], ARGV[2]) end
return 0
"""


class RedisDomainGate:
    """A ``DomainGate`` (see assay.gather.fetch.pacing) shared through one Redis database."""

    def __init__(self, url: str, *, prefix: str = "assay:pace") -> None:
        self.client = redis.Redis.from_url(url)
        self.prefix = prefix
        self._release = self.client.register_script(_RELEASE)
        self._renew = self.client.register_script(_RENEW)

    def _now(self) -> float:
        seconds, micros = self.client.time()
        return float(seconds) + float(micros) / 1e6

    @asynccontextmanager
    async def hold(self, domain: str, interval: float) -> AsyncIterator[float]:
        lease_key, last_key = f"{self.prefix}:{domain}:lease", f"{self.prefix}:{domain}:last"
        token = uuid.uuid4().hex
        asked = time.monotonic()
        while True:  # the lease lives in Redis, not in this process: poll it
            if self.client.set(lease_key, token, nx=True, px=int(LEASE * 1000)):
                break
            await asyncio.sleep(POLL)
        renewer = asyncio.create_task(self._keep(lease_key, token))
        try:
            wait = self._wait(self.client.get(last_key), interval)
            if wait > 0:
                await asyncio.sleep(wait)
            yield time.monotonic() - asked
        finally:
            renewer.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await renewer
            self.client.set(last_key, repr(self._now()), ex=max(60, int(interval * 10)))
            self._release(keys=[lease_key], args=[token])

    def _wait(self, last: object, interval: float) -> float:
        """Seconds until ``last + interval``; never more than ``interval``: a "last" in the
        future (or not a number) was not written by a worker, and must not stall them all."""
        if not isinstance(last, bytes):
            return 0.0  # no exchange yet (or the key expired)
        try:
            ended = float(last)
        except ValueError:
            return 0.0
        return min(ended + interval - self._now(), interval) if math.isfinite(ended) else 0.0

    async def _keep(self, lease_key: str, token: str) -> None:
        while True:
            await asyncio.sleep(LEASE / 3)
            self._renew(keys=[lease_key], args=[token, int(LEASE * 1000)])
