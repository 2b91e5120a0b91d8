"""Per-domain pacing and the global concurrency cap, in the Pacer and over the lab."""

from __future__ import annotations

import asyncio
import itertools
import time
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path

import pytest

from assay.config import FetchSettings
from assay.gather.fetch import Fetcher
from assay.gather.fetch.pacing import Pacer, shared_pacing
from assay.lab import Lab, serve_lab

pytestmark = pytest.mark.paced  # what these tests prove includes the real pacing


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(scope="module")
def five_sites(lab_corpus_dir: Path) -> Iterator[Lab]:
    with serve_lab(lab_corpus_dir, sites=5) as running:
        yield running


def test_two_fetches_to_one_domain_are_a_second_apart_while_five_domains_run_in_parallel(
    five_sites: Lab,
) -> None:
    urls = [
        f"{site}/pages/{page.slug}"
        for site, pages in zip(five_sites.sites, five_sites.site_pages, strict=True)
        for page in pages[:2]
    ]
    assert len(urls) == 10

    async def fetch_all() -> float:
        async with Fetcher(FetchSettings(), allow_hosts=["127.0.0.0/8"]) as fetcher:
            started = time.monotonic()
            pages = await asyncio.gather(*(fetcher.fetch(u) for u in urls))
            assert [p.status for p in pages] == [200] * 10
            return time.monotonic() - started

    started = time.monotonic()
    wall = asyncio.run(fetch_all())
    by_site: dict[str, list[float]] = defaultdict(list)
    for site, _, at in five_sites.hits():
        if at >= started:
            by_site[site].append(at)
    assert sorted(by_site) == sorted(five_sites.sites)
    for times in by_site.values():
        assert len(times) == 3  # robots.txt and two pages
        gaps = [b - a for a, b in itertools.pairwise(times)]
        assert min(gaps) >= 1.0, gaps  # as the server saw them
    # Serially, five sites × (robots + 2 pages) would need ≥ 10 s; in parallel about 2 s.
    assert wall < 4.0


@pytest.mark.anyio
async def test_one_host_is_serialised_with_its_interval() -> None:
    pacer = Pacer(0.2, 8)
    spans: list[tuple[float, float]] = []

    async def one() -> None:
        async with pacer.slot("a.example"):
            start = time.monotonic()
            await asyncio.sleep(0.05)
            spans.append((start, time.monotonic()))

    await asyncio.gather(one(), one(), one())
    spans.sort()
    for (_, end), (start, _) in itertools.pairwise(spans):
        assert start - end >= 0.2  # quiet time after the previous exchange ended


@pytest.mark.anyio
async def test_hosts_run_in_parallel_up_to_the_concurrency_cap() -> None:
    pacer = Pacer(1.0, 2)
    running = peak = 0

    async def one(host: str) -> None:
        nonlocal running, peak
        async with pacer.slot(host) as waited:
            assert waited < 0.5
            running += 1
            peak = max(peak, running)
            await asyncio.sleep(0.05)
            running -= 1

    started = time.monotonic()
    await asyncio.gather(*(one(f"h{i}.example") for i in range(6)))
    assert peak == 2
    assert time.monotonic() - started < 0.5  # different hosts never wait for each other


@pytest.mark.anyio
async def test_crawl_delay_only_ever_lengthens_the_interval() -> None:
    pacer = Pacer(1.0, 2)
    pacer.set_crawl_delay("Slow.Example", 3.0)
    pacer.set_crawl_delay("fast.example", 0.1)
    assert pacer.interval_for("slow.example") == 3.0
    assert pacer.interval_for("fast.example") == 1.0
    assert pacer.interval_for("other.example") == 1.0


def test_two_fetchers_of_one_process_pace_a_domain_together(five_sites: Lab) -> None:
    """Concurrent runs (a batch) each have a Fetcher; the domain still gets its second of quiet.

    Outside ``shared_pacing`` each Fetcher paces alone, and the same two fetches overlap."""
    site = five_sites.sites[0]
    urls = [f"{site}/pages/{page.slug}" for page in five_sites.site_pages[0][2:4]]

    async def fetch_one(url: str) -> int:
        async with Fetcher(FetchSettings(), allow_hosts=["127.0.0.0/8"]) as fetcher:
            return (await fetcher.fetch(url)).status

    async def both(shared: bool) -> list[int]:
        if not shared:
            return list(await asyncio.gather(*(fetch_one(u) for u in urls)))
        with shared_pacing():
            return list(await asyncio.gather(*(fetch_one(u) for u in urls)))

    def gaps(shared: bool) -> list[float]:
        started = time.monotonic()
        assert asyncio.run(both(shared)) == [200, 200]
        times = [at for hit, _, at in five_sites.hits() if hit == site and at >= started]
        assert len(times) == 4  # robots.txt (once per fetcher) and two pages
        return [b - a for a, b in itertools.pairwise(times)]

    assert min(gaps(shared=True)) >= 1.0
    assert min(gaps(shared=False)) < 1.0
