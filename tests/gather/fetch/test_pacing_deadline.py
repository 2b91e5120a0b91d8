"""A host's pacing interval counts against the fetch's deadline; queueing behind our own
requests does not; a wait that would outlast the deadline fails at once."""

from __future__ import annotations

import asyncio
import time

import httpx2
import pytest

from assay.config import FetchSettings
from assay.errors import FetchError, PolicyViolation
from assay.gather.fetch import Fetcher
from assay.gather.fetch.pacing import Pacer, PacingOverrun

pytestmark = pytest.mark.paced  # the real intervals, not the suite's quick ones


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def _crawl_delayed(delay: float, hops: int, seen: list[str]) -> httpx2.MockTransport:
    """A host asking for ``delay`` s between requests, whose /hop/N redirects to N+1."""

    def handler(request: httpx2.Request) -> httpx2.Response:
        seen.append(str(request.url))
        if request.url.path == "/robots.txt":
            return httpx2.Response(200, text=f"User-agent: *\nCrawl-delay: {delay}\n")
        number = int(request.url.path.rsplit("/", 1)[1])
        if number < hops:
            return httpx2.Response(302, headers={"location": f"/hop/{number + 1}"})
        return httpx2.Response(200, html="<p>there</p>")

    return httpx2.MockTransport(handler)


@pytest.mark.anyio
async def test_a_crawl_delay_longer_than_the_deadline_fails_at_once() -> None:
    seen: list[str] = []
    settings = FetchSettings(total_timeout=10, max_retry_after=30)
    async with Fetcher(settings, transport=_crawl_delayed(20, 4, seen)) as fetcher:
        started = time.monotonic()
        with pytest.raises(FetchError, match="no complete answer within 10 s") as raised:
            # Before: each of the five hops slept the 20 s interval, deadline extended: 80 s.
            await asyncio.wait_for(fetcher.fetch("http://slow.example/hop/0"), 5)
        elapsed = time.monotonic() - started
    assert "20 s between requests" in str(raised.value)
    assert elapsed < 2.0
    assert seen == ["http://slow.example/robots.txt"]  # nothing sent it could not finish


@pytest.mark.anyio
async def test_the_interval_is_charged_to_the_deadline_hop_after_hop() -> None:
    seen: list[str] = []
    settings = FetchSettings(total_timeout=2.0)
    async with Fetcher(settings, transport=_crawl_delayed(1.5, 1, seen)) as fetcher:
        started = time.monotonic()
        with pytest.raises(FetchError, match="no complete answer within 2 s"):
            await fetcher.fetch("http://slow.example/hop/0")
        elapsed = time.monotonic() - started
    # robots.txt, then /hop/0 after its 1.5 s; /hop/1 would need 1.5 s more of a 2 s budget.
    # Before: each wait extended the deadline, and the fetch succeeded after 3 s.
    assert [u.rsplit("/", 1)[1] for u in seen] == ["robots.txt", "0"]
    assert 1.4 < elapsed < 2.0


@pytest.mark.anyio
async def test_robots_txt_waits_within_the_page_deadline_and_is_not_held_against_the_host() -> None:
    seen: list[str] = []

    def handler(request: httpx2.Request) -> httpx2.Response:
        seen.append(str(request.url))
        if request.url.path == "/robots.txt":
            return httpx2.Response(200, text="User-agent: *\nCrawl-delay: 1.2\n")
        if request.url.port is None:  # to another origin (port) of the same host
            return httpx2.Response(302, headers={"location": "http://site.example:8080/b"})
        return httpx2.Response(200, html="<p>there</p>")

    settings = FetchSettings(total_timeout=2.0)
    async with Fetcher(settings, transport=httpx2.MockTransport(handler)) as fetcher:
        started = time.monotonic()
        with pytest.raises(FetchError, match="no complete answer within 2 s") as raised:
            await fetcher.fetch("http://site.example/a")
        # robots.txt, 1.2 s, /a: the 8080 origin's robots.txt would need 1.2 s of the 0.8 s
        # left. Before: it slept on its own fresh deadline until the page's ran out (2 s).
        assert time.monotonic() - started < 1.6
        assert seen == ["http://site.example/robots.txt", "http://site.example/a"]
        # Out of time is not a robots.txt rule ("unreachable, so disallowed" for the run):
        assert not isinstance(raised.value, PolicyViolation)
        with pytest.raises(FetchError, match="no complete answer within 2 s"):
            await fetcher.fetch("http://site.example:8080/b")
    assert seen[2:] == ["http://site.example:8080/robots.txt"]  # asked again, not held


class _Budget:
    def __init__(self, left: float) -> None:
        self.left = left
        self.extended = 0.0

    def extend(self, waited: float) -> None:
        self.extended += waited

    def remaining(self) -> float:
        return self.left


@pytest.mark.anyio
async def test_queueing_behind_our_own_requests_extends_the_budget() -> None:
    pacer = Pacer(0.2, 8)
    budgets = [_Budget(0.3) for _ in range(3)]

    async def one(budget: _Budget) -> None:
        async with pacer.slot("a.example", budget):
            await asyncio.sleep(0.1)

    started = time.monotonic()
    await asyncio.gather(*(one(b) for b in budgets))  # each waits 0.2 s, within its 0.3 s
    assert time.monotonic() - started >= 0.65
    # Each waited in the host's queue while the ones before it had their turn (their
    # interval and exchange): that is extended; its own 0.2 s interval is not.
    first, second, third = (b.extended for b in budgets)
    assert first < 0.05 and 0.08 < second < 0.2 and 0.35 < third < 0.55

    tight = _Budget(0.1)
    started = time.monotonic()
    with pytest.raises(PacingOverrun):
        async with pacer.slot("a.example", tight):
            pytest.fail("a slot the budget cannot wait for is not granted")
    assert time.monotonic() - started < 0.05  # failed at once, without sleeping
    async with pacer.slot("other.example", tight):  # another host has no interval to wait
        pass
