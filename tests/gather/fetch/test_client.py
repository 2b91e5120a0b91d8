"""The fetch policy over real loopback HTTP against the lab's fault endpoints.

Pacing keeps every request to one host ≥ 1 s after the last, so a retry or a redirect
chain costs whole seconds. To keep the suite fast, the fault scenarios run concurrently
once per module (each with its own Fetcher) and each test then checks one outcome.
"""

from __future__ import annotations

import asyncio
import itertools
import threading
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass

import psutil
import pytest

from assay.config import FetchSettings
from assay.errors import FetchError, PolicyViolation
from assay.gather.fetch import FetchedPage, Fetcher
from assay.lab import Lab

pytestmark = pytest.mark.paced  # what these tests prove includes the real pacing

LAB_NET = ["127.0.0.0/8"]
MB = 1_000_000


@dataclass(frozen=True)
class Outcome:
    url: str
    page: FetchedPage | None
    error: FetchError | None
    seconds: float
    bytes_received: int


async def run_fetch(url: str, settings: FetchSettings | None = None) -> Outcome:
    """Fetch ``url`` with a fresh Fetcher (its own robots cache and pacing)."""
    fetcher = Fetcher(settings or FetchSettings(), allow_hosts=LAB_NET)
    async with fetcher:
        started = time.monotonic()
        page: FetchedPage | None = None
        error: FetchError | None = None
        try:
            page = await fetcher.fetch(url)
        except FetchError as exc:
            error = exc
        seconds = time.monotonic() - started
    assert fetcher.backend is not None
    return Outcome(url, page, error, seconds, fetcher.backend.bytes_received)


def _scenarios(lab: Lab, case: str) -> dict[str, tuple[str, FetchSettings]]:
    """Fault counters are per (client, target): every stateful scenario gets its own query."""
    one, two, three = lab.sites
    slug = lab.site_pages[0][0].slug
    return {
        "page": (f"{one}/pages/{slug}", FetchSettings()),
        "wrong-type": (f"{one}/fault/wrong-type", FetchSettings()),
        "huge": (f"{two}/fault/huge", FetchSettings()),
        "loop": (f"{three}/fault/redirect-loop?case={case}", FetchSettings()),
        "429": (f"{one}/fault/429?case={case}", FetchSettings()),
        "429-too-long": (f"{two}/fault/429?case={case}-2", FetchSettings(max_retry_after=0.5)),
        "500": (f"{three}/fault/500?case={case}", FetchSettings()),
        "500-exhausted": (f"{one}/fault/500?case={case}-2", FetchSettings(retries=1)),
        "slow": (f"{two}/fault/slow?seconds=3&case={case}", FetchSettings(read_timeout=0.5)),
        "deadline": (
            f"{three}/fault/slow?seconds=3&case={case}",
            FetchSettings(read_timeout=5, total_timeout=1.5),  # 1 s of it: pacing
        ),
    }


@pytest.fixture(scope="module")
def outcomes(lab: Lab) -> dict[str, Outcome]:
    scenarios = _scenarios(lab, uuid.uuid4().hex[:8])

    async def run_all() -> dict[str, Outcome]:
        runs = [run_fetch(url, settings) for url, settings in scenarios.values()]
        return dict(zip(scenarios, await asyncio.gather(*runs), strict=True))

    return asyncio.run(run_all())


def _hits(lab: Lab, outcome: Outcome) -> list[float]:
    target = outcome.url.split(":", 2)[2].split("/", 1)[1]
    return [t for _, path, t in lab.hits() if path == "/" + target]


def test_a_plain_page_is_fetched(outcomes: dict[str, Outcome]) -> None:
    page = outcomes["page"].page
    assert page is not None and outcomes["page"].error is None
    assert (page.status, page.content_type, page.charset) == (200, "text/html", "utf-8")
    assert page.final_url == page.url and page.redirects == ()
    assert not page.from_cache and not page.truncated
    assert b"<article" in page.body and page.headers["content-type"].startswith("text/html")


def test_wrong_content_type_is_refused(outcomes: dict[str, Outcome]) -> None:
    error = outcomes["wrong-type"].error
    assert isinstance(error, PolicyViolation)
    assert error.reason == "content type application/octet-stream is not fetched"


def test_a_20_mb_page_is_cut_at_1_mb_without_reading_the_rest(
    outcomes: dict[str, Outcome],
) -> None:
    outcome = outcomes["huge"]
    assert outcome.page is not None
    assert len(outcome.page.body) == MB and outcome.page.truncated
    assert outcome.page.body.startswith(b"<!doctype html>")
    # robots.txt + 1 MB + at most a few socket buffers: nowhere near 20 MB
    assert outcome.bytes_received < 4 * MB


def test_a_redirect_loop_is_refused_after_five_hops(lab: Lab, outcomes: dict[str, Outcome]) -> None:
    outcome = outcomes["loop"]
    assert isinstance(outcome.error, PolicyViolation)
    assert outcome.error.reason == "more than 5 redirects"
    assert outcome.error.url == outcome.url
    assert len(_hits(lab, outcome)) == 6  # the first request and five redirects followed


def test_429_is_retried_after_retry_after(lab: Lab, outcomes: dict[str, Outcome]) -> None:
    outcome = outcomes["429"]
    assert outcome.page is not None and outcome.page.status == 200
    first, second = _hits(lab, outcome)
    assert second - first >= 1.0  # Retry-After: 1


def test_a_retry_after_beyond_the_limit_gives_up(outcomes: dict[str, Outcome]) -> None:
    error = outcomes["429-too-long"].error
    assert type(error) is FetchError
    assert error.reason == "HTTP 429 with Retry-After 1 s (over the 0.5 s limit)"


def test_500_is_retried_until_it_recovers(lab: Lab, outcomes: dict[str, Outcome]) -> None:
    outcome = outcomes["500"]
    assert outcome.page is not None and outcome.page.status == 200
    hits = _hits(lab, outcome)
    assert len(hits) == 3
    assert all(b - a >= 1.0 for a, b in itertools.pairwise(hits))


def test_500_retries_are_bounded(lab: Lab, outcomes: dict[str, Outcome]) -> None:
    outcome = outcomes["500-exhausted"]
    assert type(outcome.error) is FetchError
    assert outcome.error.reason == "HTTP 500 after 2 attempts"
    assert len(_hits(lab, outcome)) == 2


def test_a_slow_page_hits_the_read_timeout(outcomes: dict[str, Outcome]) -> None:
    outcome = outcomes["slow"]
    assert type(outcome.error) is FetchError
    assert outcome.error.reason == "read timed out (0.5 s)"
    assert outcome.seconds < 2.5  # robots, 1 s of pacing, 0.5 s of waiting: not 3 s


def test_a_slow_page_hits_the_total_deadline(outcomes: dict[str, Outcome]) -> None:
    outcome = outcomes["deadline"]
    assert type(outcome.error) is FetchError
    assert outcome.error.reason == "no complete answer within 1.5 s"
    assert outcome.seconds < 2.5  # robots, the 1 s pacing gap, then the page until 1.5 s


@pytest.mark.parametrize(
    "url", ["ftp://example.com/file", "file:///etc/passwd", "gopher://x/", "data:text/plain,hi"]
)
def test_other_schemes_are_refused(url: str) -> None:
    async def fetch() -> None:
        async with Fetcher(FetchSettings()) as fetcher:
            await fetcher.fetch(url)

    with pytest.raises(PolicyViolation, match="is not allowed") as info:
        asyncio.run(fetch())
    assert info.value.url == url


class _PeakRSS:
    """Samples this process's resident memory every 5 ms while the block runs."""

    def __init__(self) -> None:
        self._process = psutil.Process()
        self.baseline = self._process.memory_info().rss
        self.peak = self.baseline
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True)

    def _sample(self) -> None:
        while not self._done.wait(0.005):
            self.peak = max(self.peak, self._process.memory_info().rss)

    def __enter__(self) -> _PeakRSS:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._done.set()
        self._thread.join()

    @property
    def growth(self) -> int:
        return self.peak - self.baseline


@pytest.fixture
def peak_rss() -> Iterator[_PeakRSS]:
    with _PeakRSS() as meter:
        yield meter


def test_a_gzip_bomb_is_refused_in_bounded_memory(lab: Lab, peak_rss: _PeakRSS) -> None:
    outcome = asyncio.run(run_fetch(f"{lab.sites[1]}/fault/gzip-bomb"))
    assert isinstance(outcome.error, PolicyViolation)
    assert outcome.error.reason.startswith("decompressed size exceeds 1000000 bytes")
    assert peak_rss.growth < 100 * 1024 * 1024
    assert outcome.bytes_received < 4 * MB  # of a ~10 MB compressed body
