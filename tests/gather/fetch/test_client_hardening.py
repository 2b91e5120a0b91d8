"""The fetch policy binds the cache too; the total timeout is total; hopeless errors are final."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from pathlib import Path

import httpx2
import pytest

from assay.config import FetchSettings
from assay.errors import FetchError, PolicyViolation
from assay.gather.fetch import Fetcher
from assay.lab import Lab

pytestmark = pytest.mark.paced  # what these tests prove includes the real pacing


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.mark.anyio
async def test_a_cached_page_is_served_only_under_a_policy_that_allows_it(
    lab: Lab, tmp_path: Path
) -> None:
    url = f"{lab.sites[1]}/pages/{lab.site_pages[1][0].slug}"
    cache = tmp_path / "http-cache.sqlite"
    async with Fetcher(FetchSettings(), allow_hosts=["127.0.0.0/8"], cache_path=cache) as first:
        assert not (await first.fetch(url)).from_cache
    before = len(lab.hits())
    async with Fetcher(FetchSettings(), allow_hosts=[], cache_path=cache) as refused:
        with pytest.raises(PolicyViolation, match="loopback"):
            await refused.fetch(url)
    async with Fetcher(FetchSettings(), allow_hosts=["10.0.0.0/8"], cache_path=cache) as other:
        with pytest.raises(PolicyViolation):
            await other.fetch(url)
    assert len(lab.hits()) == before  # refused before any request, as without a cache
    async with Fetcher(FetchSettings(), allow_hosts=["127.0.0.0/8"], cache_path=cache) as again:
        assert (await again.fetch(url)).from_cache


@pytest.mark.anyio
async def test_a_cached_redirect_through_a_refused_host_is_not_served(
    lab: Lab, tmp_path: Path
) -> None:
    lab_site = httpx2.URL(lab.sites[0])
    start = f"http://a.example:{lab_site.port}/go"  # on the lab's port: refused hops ask it
    target = f"{lab.sites[2]}/pages/{lab.site_pages[2][0].slug}"
    cache = tmp_path / "http-cache.sqlite"

    def redirecting(request: httpx2.Request) -> httpx2.Response:
        if request.url.path == "/robots.txt":
            return httpx2.Response(404)
        if request.url.host == "a.example":
            return httpx2.Response(302, headers={"location": target})
        return httpx2.Response(200, text="<p>inside</p>", headers={"content-type": "text/html"})

    async with Fetcher(
        FetchSettings(), cache_path=cache, transport=httpx2.MockTransport(redirecting)
    ) as recording:
        page = await recording.fetch(start)
        assert page.redirects == (target,)

    async def to_the_lab(host: str) -> list[str]:
        return [lab_site.host]

    before = len(lab.hits())
    # a.example is allowed by name, the redirect's loopback target is not: no cached page.
    async with Fetcher(
        FetchSettings(), allow_hosts=["a.example"], cache_path=cache, resolver=to_the_lab
    ) as strict:
        with pytest.raises(FetchError, match="HTTP 404"):
            await strict.fetch(start)
    assert len(lab.hits()) > before  # asked the network, under this policy


def _slow_robots(delay: float) -> httpx2.MockTransport:
    async def handler(request: httpx2.Request) -> httpx2.Response:
        if request.url.path == "/robots.txt":
            await asyncio.sleep(delay)
            return httpx2.Response(404)
        hop = int(request.url.host.split(".")[0].removeprefix("h"))
        return httpx2.Response(302, headers={"location": f"http://h{hop + 1}.example/next"})

    return httpx2.MockTransport(handler)


@pytest.mark.anyio
async def test_robots_txt_time_counts_against_the_total_timeout() -> None:
    settings = FetchSettings(total_timeout=1.0, min_domain_interval=1.0, max_redirects=5)
    async with Fetcher(settings, transport=_slow_robots(0.4)) as fetcher:
        started = time.monotonic()
        with pytest.raises(FetchError, match="within 1 s"):
            await fetcher.fetch("http://h0.example/start")
        elapsed = time.monotonic() - started
    # The first host's robots.txt takes 0.4 s; the 1 s pacing gap before its page would
    # outlast the 0.6 s left, so the fetch fails there. Before, robots time did not count:
    # six hops later the chain failed on "more than 5 redirects" (~8 s).
    assert elapsed < 4.0


async def _huge_header_server(requests: list[str]) -> AsyncIterator[int]:
    async def answer(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        line = (await reader.readline()).decode()
        requests.append(line.split(" ")[1])
        while (await reader.readline()) not in (b"\r\n", b""):
            pass
        if line.startswith("GET /robots.txt"):
            writer.write(b"HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\n\r\n")
        else:
            writer.write(b"HTTP/1.1 200 OK\r\nx-filler: " + b"a" * 200_000 + b"\r\n\r\n")
        await writer.drain()
        writer.close()

    server = await asyncio.start_server(answer, "127.0.0.1", 0)
    async with server:
        yield server.sockets[0].getsockname()[1]


@pytest.mark.anyio
async def test_a_200_kb_header_is_not_retried() -> None:
    requests: list[str] = []
    async for port in _huge_header_server(requests):
        settings = FetchSettings(retries=3, min_domain_interval=1.0)
        async with Fetcher(settings, allow_hosts=["127.0.0.1"]) as fetcher:
            with pytest.raises(FetchError, match="unusable response"):
                await fetcher.fetch(f"http://127.0.0.1:{port}/page")
    assert requests.count("/page") == 1
