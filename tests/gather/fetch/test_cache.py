"""The SQLite page cache: fresh entries skip the network, stale ones are revalidated."""

from __future__ import annotations

import time
from dataclasses import replace
from pathlib import Path
from types import MappingProxyType

import httpx2
import pytest

from assay.__about__ import PROJECT_URL, __version__
from assay.config import FetchSettings
from assay.gather.fetch import FetchedPage, Fetcher
from assay.gather.fetch.cache import PageCache
from assay.lab import Lab

pytestmark = pytest.mark.paced  # what these tests prove includes the real pacing


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.mark.anyio
async def test_a_second_fetch_is_served_from_the_cache(lab: Lab, tmp_path: Path) -> None:
    url = f"{lab.sites[2]}/pages/{lab.site_pages[2][0].slug}"
    cache = tmp_path / "cache" / "pages.sqlite"
    async with Fetcher(FetchSettings(), allow_hosts=["127.0.0.0/8"], cache_path=cache) as f:
        first = await f.fetch(url)
        before = len(lab.hits())
        started = time.monotonic()
        second = await f.fetch(url)
        assert time.monotonic() - started < 0.5  # no pacing wait: no request at all
    assert not first.from_cache and second.from_cache
    assert second.body == first.body and second.final_url == first.final_url
    assert second.content_type == "text/html" and second.charset == "utf-8"
    async with Fetcher(FetchSettings(), allow_hosts=["127.0.0.0/8"], cache_path=cache) as later:
        third = await later.fetch(url)  # a new run: still fresh, still no request
    assert third.from_cache and third.body == first.body
    assert len(lab.hits()) == before


@pytest.mark.anyio
async def test_a_stale_page_is_revalidated_over_http_and_the_lab_answers_304(
    lab: Lab, tmp_path: Path
) -> None:
    url = f"{lab.sites[1]}/pages/{lab.site_pages[1][-1].slug}"
    cache = tmp_path / "revalidate.sqlite"
    settings = FetchSettings(cache_ttl=0)  # every entry is stale at once
    async with Fetcher(settings, allow_hosts=["127.0.0.0/8"], cache_path=cache) as fetcher:
        first = await fetcher.fetch(url)
        assert first.headers.get("etag")
        target = url.split(str(lab.port), 1)[1]
        before = len(lab.hits(target))
        second = await fetcher.fetch(url)
    assert second.from_cache and second.body == first.body
    assert len(lab.hits(target)) == before + 1  # one conditional request, answered 304


PAGE_URL = "http://news.example/story"


def _page(body: bytes, **headers: str) -> FetchedPage:
    return FetchedPage(
        url=PAGE_URL,
        final_url=PAGE_URL,
        status=200,
        content_type="text/html",
        charset="utf-8",
        body=body,
        headers=MappingProxyType({"content-type": "text/html; charset=utf-8", **headers}),
        from_cache=False,
        redirects=(),
    )


@pytest.mark.anyio
async def test_a_stale_entry_is_revalidated_and_a_304_refreshes_it(tmp_path: Path) -> None:
    path = tmp_path / "pages.sqlite"
    cache = PageCache(path)
    etag, modified = '"v1"', "Mon, 05 Jan 2026 10:00:00 GMT"
    await cache.put(_page(b"<p>version one</p>", etag=etag, **{"last-modified": modified}))
    cache.close()
    version = {"etag": etag, "body": "<p>version one</p>"}
    seen: list[httpx2.Request] = []

    def handler(request: httpx2.Request) -> httpx2.Response:
        if request.url.path == "/robots.txt":
            return httpx2.Response(404)
        seen.append(request)
        if request.headers.get("if-none-match") == version["etag"]:
            return httpx2.Response(304, headers={"ETag": version["etag"]})
        return httpx2.Response(200, html=version["body"], headers={"ETag": version["etag"]})

    settings = FetchSettings(cache_ttl=0)  # everything is stale at once
    transport = httpx2.MockTransport(handler)
    async with Fetcher(settings, cache_path=path, transport=transport) as fetcher:
        revalidated = await fetcher.fetch(PAGE_URL)
        assert revalidated.from_cache and revalidated.body == b"<p>version one</p>"
        request = seen[-1]
        assert request.headers["if-none-match"] == etag
        assert request.headers["if-modified-since"] == modified
        assert request.headers["user-agent"] == f"assay/{__version__} (+{PROJECT_URL})"
        assert "gzip" in request.headers["accept-encoding"]

        version.update(etag='"v2"', body="<p>version two</p>")
        changed = await fetcher.fetch(PAGE_URL)
        assert not changed.from_cache and changed.body == b"<p>version two</p>"
    cache = PageCache(path)
    entry = await cache.get(PAGE_URL)
    cache.close()
    assert entry is not None and entry.page.headers["etag"] == '"v2"'


@pytest.mark.anyio
async def test_only_complete_200_pages_are_stored(tmp_path: Path) -> None:
    cache = PageCache(tmp_path / "pages.sqlite")
    page = _page(b"<p>x</p>")
    await cache.put(replace(page, url="http://a.example/cut", truncated=True))
    await cache.put(replace(page, url="http://a.example/partial", status=203))
    await cache.put(
        replace(page, url="http://a.example/private", headers={"cache-control": "no-store"})
    )
    await cache.put(replace(page, url="http://a.example/whole"))
    for name in ("cut", "partial", "private"):
        assert await cache.get(f"http://a.example/{name}") is None
    entry = await cache.get("http://a.example/whole")
    cache.close()
    assert entry is not None and entry.page.from_cache and entry.page.body == b"<p>x</p>"
    assert entry.is_fresh(60, time.time()) and not entry.is_fresh(0, time.time())


def test_page_text_uses_the_declared_charset() -> None:
    latin = replace(_page("café".encode("latin-1")), charset="ISO-8859-1")
    assert latin.text() == "café"
    unknown = replace(_page("café".encode()), charset="no-such-charset")
    assert unknown.text() == "café"  # falls back to UTF-8
    broken = replace(_page(b"caf\xe9"), charset=None)
    assert broken.text() == "caf\ufffd"  # undecodable bytes do not fail the page
