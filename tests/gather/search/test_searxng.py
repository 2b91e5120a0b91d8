"""SearXNG provider against a local imitation of a SearXNG instance's JSON API."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx2
import pytest

from assay.config import load_settings
from assay.errors import ConfigError, ProviderError
from assay.gather.search import searxng
from assay.keys import KeyStore

pytestmark = pytest.mark.anyio

BASE = "http://127.0.0.1:8888"
PAGE_SIZE = 10


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def _result(n: int, query: str) -> dict[str, Any]:
    return {
        "url": f"https://example{n}.org/article/{n}",
        "title": f"Article {n} about {query}",
        "content": f"Content {n} of {query}.",
        "publishedDate": "2024-02-01T00:00:00" if n % 3 == 0 else None,
        "thumbnail": None,
        "engine": "duckduckgo",
        "template": "default.html",
        "parsed_url": ["https", f"example{n}.org", f"/article/{n}", "", "", ""],
        "img_src": "",
        "priority": "",
        "engines": ["duckduckgo", "brave"],
        "positions": [n, n + 1],
        "score": 2.0 / n,
        "category": "general",
    }


class SearxngImitation:
    """Answers like GET {base}/search?q=...&format=json on a SearXNG instance."""

    def __init__(
        self,
        *,
        path: str = "/search",
        total: int = 25,
        json_enabled: bool = True,
        unresponsive: list[list[str]] | None = None,
    ) -> None:
        self.path = path
        self.total = total
        self.json_enabled = json_enabled
        self.unresponsive = unresponsive or []
        self.requests: list[httpx2.Request] = []

    def __call__(self, request: httpx2.Request) -> httpx2.Response:
        self.requests.append(request)
        assert request.method == "GET"
        assert request.url.path == self.path
        params = dict(request.url.params)
        assert set(params) <= {"q", "format", "pageno", "time_range", "language", "categories",
                               "engines", "safesearch"}  # fmt: skip
        assert params["q"]
        assert params.get("time_range", "day") in {"day", "week", "month", "year"}
        page = int(params.get("pageno", "1"))
        assert page >= 1
        if params.get("format") != "json" or not self.json_enabled:
            return httpx2.Response(403, text="Forbidden")
        start = (page - 1) * PAGE_SIZE + 1
        numbers = range(start, min(start + PAGE_SIZE, self.total + 1))
        return httpx2.Response(
            200,
            json={
                "query": params["q"],
                "number_of_results": 0,
                "results": [_result(n, params["q"]) for n in numbers],
                "answers": [],
                "corrections": [],
                "infoboxes": [],
                "suggestions": [],
                "unresponsive_engines": self.unresponsive,
            },
        )


async def _search(
    handler: Any, queries: list[str], *, base: str = BASE, **kwargs: Any
) -> list[Any]:
    async with httpx2.AsyncClient(transport=httpx2.MockTransport(handler)) as http:
        provider = searxng.create(load_settings(searxng_url=base), http=http, keys=KeyStore(Path()))
        kwargs.setdefault("max_results", 5)
        return await provider.search(queries, **kwargs)


async def test_one_page_is_enough_for_few_results() -> None:
    api = SearxngImitation()
    results = await _search(api, ["open data"], max_results=4)
    (request,) = api.requests
    assert str(request.url).startswith(f"{BASE}/search?")
    assert dict(request.url.params) == {"q": "open data", "format": "json", "pageno": "1"}
    assert [(r.rank, r.url) for r in results] == [
        (n, f"https://example{n}.org/article/{n}") for n in range(1, 5)
    ]
    assert results[0].title == "Article 1 about open data"
    assert results[0].snippet == "Content 1 of open data."
    assert results[0].provider == "searxng"
    assert results[2].published_date == "2024-02-01T00:00:00"
    assert results[0].published_date is None


async def test_pages_are_read_until_enough() -> None:
    api = SearxngImitation(total=25)
    results = await _search(api, ["q"], max_results=22)
    assert [r.url.params["pageno"] for r in api.requests] == ["1", "2", "3"]
    assert len(results) == 22
    assert [r.rank for r in results] == list(range(1, 23))


async def test_reading_stops_when_a_page_is_empty() -> None:
    api = SearxngImitation(total=12)
    results = await _search(api, ["q"], max_results=30)
    assert [r.url.params["pageno"] for r in api.requests] == ["1", "2", "3"]
    assert len(results) == 12


@pytest.mark.parametrize("time_range", ["day", "week", "month", "year"])
async def test_time_range_is_passed_through(time_range: str) -> None:
    api = SearxngImitation()
    await _search(api, ["q"], time_range=time_range)
    assert api.requests[0].url.params["time_range"] == time_range


async def test_base_url_with_a_path_prefix() -> None:
    api = SearxngImitation(path="/searx/search")
    results = await _search(api, ["q"], base="https://search.example.org/searx/", max_results=1)
    assert str(api.requests[0].url).startswith("https://search.example.org/searx/search?")
    assert len(results) == 1


async def test_json_format_disabled() -> None:
    with pytest.raises(ProviderError) as caught:
        await _search(SearxngImitation(json_enabled=False), ["q"])
    message = str(caught.value)
    assert "HTTP 403" in message
    assert "search.formats" in message
    assert "key" not in message  # SearXNG has no key to blame


async def test_every_engine_failed() -> None:
    api = SearxngImitation(total=0, unresponsive=[["google", "timeout"], ["brave", "CAPTCHA"]])
    with pytest.raises(ProviderError, match=r"engines that failed: google \(timeout\), brave"):
        await _search(api, ["q"])


async def test_no_results_is_not_an_error() -> None:
    assert await _search(SearxngImitation(total=0), ["q"]) == []


async def test_rate_limited() -> None:
    def handler(request: httpx2.Request) -> httpx2.Response:
        return httpx2.Response(429, text="Too Many Requests")

    with pytest.raises(ProviderError, match="rate limited"):
        await _search(handler, ["q"])


def test_missing_url_is_a_config_error() -> None:
    with pytest.raises(ConfigError) as caught:
        searxng.create(load_settings(), http=httpx2.AsyncClient(), keys=KeyStore(Path()))
    assert "--searxng-url" in str(caught.value)
    assert "ASSAY_SEARXNG_URL" in str(caught.value)


def test_url_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ASSAY_SEARXNG_URL", "https://searx.example.net")
    provider = searxng.create(load_settings(), http=httpx2.AsyncClient(), keys=KeyStore(Path()))
    assert provider.endpoint == "https://searx.example.net/search"


def test_non_http_url_is_a_config_error() -> None:
    with pytest.raises(ConfigError, match="http"):
        searxng.create(
            load_settings(searxng_url="ftp://x.example"),
            http=httpx2.AsyncClient(),
            keys=KeyStore(Path()),
        )
