"""robots.txt: obeyed per origin for ``assay``; 4xx allows, 5xx and no answer disallow."""

from __future__ import annotations

import asyncio
import time

import httpx2
import pytest

from assay.config import FetchSettings
from assay.errors import FetchError, PolicyViolation
from assay.gather.fetch import ROBOTS_DISALLOWED, Fetcher
from assay.gather.fetch.exchange import Deadline
from assay.gather.fetch.robots import RobotsAnswer, RobotsPolicy
from assay.lab import Lab

pytestmark = pytest.mark.paced  # what these tests prove includes the real pacing

LAB_NET = ["127.0.0.0/8"]


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def _targets_since(lab: Lab, before: int, site: str) -> list[str]:
    return [target for s, target, _ in lab.hits()[before:] if s == site]


@pytest.mark.anyio
async def test_a_disallowed_page_is_refused_without_being_requested(lab: Lab) -> None:
    site = lab.sites[0]
    slug = lab.site_pages[0][0].slug
    before = len(lab.hits())
    async with Fetcher(FetchSettings(), allow_hosts=LAB_NET) as fetcher:
        with pytest.raises(PolicyViolation) as info:
            await fetcher.fetch(f"{site}/private/{slug}")
        with pytest.raises(PolicyViolation):
            await fetcher.fetch(f"{site}/private/other")
    assert info.value.reason == ROBOTS_DISALLOWED == "disallowed by robots.txt"
    assert _targets_since(lab, before, site) == ["/robots.txt"]  # fetched once, nothing else


@pytest.mark.anyio
async def test_robots_404_allows_everything(lab_robots: Lab) -> None:
    site = lab_robots.sites[1]  # /robots.txt answers 404
    slug = lab_robots.site_pages[1][0].slug
    before = len(lab_robots.hits())
    async with Fetcher(FetchSettings(), allow_hosts=LAB_NET) as fetcher:
        page = await fetcher.fetch(f"{site}/private/{slug}")  # no rules: even /private/
    assert page.status == 200
    assert _targets_since(lab_robots, before, site) == ["/robots.txt", f"/private/{slug}"]


@pytest.mark.anyio
async def test_robots_500_disallows_the_whole_host(lab_robots: Lab) -> None:
    site = lab_robots.sites[2]  # /robots.txt answers 500
    slug = lab_robots.site_pages[2][0].slug
    before = len(lab_robots.hits())
    async with Fetcher(FetchSettings(), allow_hosts=LAB_NET) as fetcher:
        for path in (f"/pages/{slug}", "/"):
            with pytest.raises(PolicyViolation) as info:
                await fetcher.fetch(site + path)
            assert info.value.reason == "robots.txt unavailable (HTTP 500), so disallowed"
    assert _targets_since(lab_robots, before, site) == ["/robots.txt"]  # not retried either


def _policy(answer: RobotsAnswer | Exception) -> tuple[RobotsPolicy, list[str], dict[str, float]]:
    asked: list[str] = []
    delays: dict[str, float] = {}

    async def fetch(url: str, page: Deadline | None) -> RobotsAnswer:
        asked.append(url)
        await asyncio.sleep(0.01)
        if isinstance(answer, Exception):
            raise answer
        return answer

    return RobotsPolicy(fetch, delays.__setitem__), asked, delays


RULES = b"""
User-agent: *
Disallow: /

User-agent: assay
Disallow: /drafts/
Crawl-delay: 2.5
"""


@pytest.mark.anyio
async def test_rules_for_assay_are_obeyed_and_fetched_once_per_origin() -> None:
    policy, asked, delays = _policy(RobotsAnswer(200, RULES))
    answers = await asyncio.gather(
        policy.refusal("https://site.example/drafts/1"),
        policy.refusal("https://site.example/articles/1"),
        policy.refusal("https://SITE.example:443/drafts/2"),
    )
    assert answers == [ROBOTS_DISALLOWED, None, ROBOTS_DISALLOWED]
    assert asked == ["https://site.example/robots.txt"]
    assert delays == {"site.example": 2.5}
    await policy.refusal("http://site.example/articles/1")  # another scheme: another origin
    assert asked[-1] == "http://site.example/robots.txt"


@pytest.mark.anyio
@pytest.mark.parametrize(
    ("answer", "refusal"),
    [
        (RobotsAnswer(404, b""), None),
        (RobotsAnswer(401, b""), None),
        (RobotsAnswer(429, b""), "robots.txt unavailable (HTTP 429), so disallowed"),
        (RobotsAnswer(503, b""), "robots.txt unavailable (HTTP 503), so disallowed"),
        (
            FetchError("http://x/robots.txt", "read timed out (20 s)"),
            "robots.txt unreachable (read timed out (20 s)), so disallowed",
        ),
    ],
)
async def test_failure_rules(answer: RobotsAnswer | Exception, refusal: str | None) -> None:
    policy, _, _ = _policy(answer)
    assert await policy.refusal("http://x/page") == refusal


@pytest.mark.anyio
async def test_a_crawl_delay_too_long_to_wait_for_disallows_the_host() -> None:
    policy, _, delays = _policy(RobotsAnswer(200, b"User-agent: *\nCrawl-delay: 3600\n"))
    refusal = await policy.refusal("http://x/page")
    assert refusal == "robots.txt Crawl-delay 3600 s is over our 30 s"
    assert delays == {}


@pytest.mark.anyio
async def test_crawl_delay_stretches_the_pacing_interval() -> None:
    seen: list[tuple[str, float]] = []

    def handler(request: httpx2.Request) -> httpx2.Response:
        seen.append((request.url.path, time.monotonic()))
        if request.url.path == "/robots.txt":
            return httpx2.Response(200, text="User-agent: *\nCrawl-delay: 1.5\n")
        return httpx2.Response(200, html="<p>ok</p>")

    transport = httpx2.MockTransport(handler)
    async with Fetcher(FetchSettings(), transport=transport) as fetcher:
        await fetcher.fetch("http://slow.example/a")
        assert fetcher.pacer.interval_for("slow.example") == 1.5
    (_, robots_at), (_, page_at) = seen
    assert page_at - robots_at >= 1.5
