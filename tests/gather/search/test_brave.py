"""Brave Search provider against a local imitation of the Brave Web Search API."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx2
import pytest

from assay.config import load_settings
from assay.errors import MissingKeyError, ProviderError
from assay.gather.search import brave
from assay.keys import KeyStore

pytestmark = pytest.mark.anyio

KEY = "BSAtestkey0123456789"
DOCUMENTED_PARAMS = {
    "q", "country", "search_lang", "ui_lang", "count", "offset", "safesearch", "freshness",
    "text_decorations", "spellcheck", "result_filter", "goggles_id", "units", "extra_snippets",
    "summary",
}  # fmt: skip


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def _error(status: int, code: str, detail: str) -> httpx2.Response:
    """Brave's documented error envelope."""
    return httpx2.Response(
        status,
        json={
            "type": "ErrorResponse",
            "error": {
                "id": "ade84851-a6f3-4cf9-8c76-1dc897718b0b",
                "status": status,
                "code": code,
                "detail": detail,
                "meta": {"component": "authentication" if status == 422 else "rate_limiter"},
            },
            "time": 1754364294,
        },
    )


def _result(n: int, query: str, *, dated: bool) -> dict[str, Any]:
    item: dict[str, Any] = {
        "title": f"Result {n} about {query}",
        "url": f"https://site{n}.example.org/{n}",
        "is_source_local": False,
        "is_source_both": False,
        "description": f"Snippet {n} for {query}.",
        "profile": {
            "name": f"Site {n}",
            "url": f"https://site{n}.example.org/{n}",
            "long_name": f"site{n}.example.org",
            "img": "https://imgs.search.brave.com/x.png",
        },
        "language": "en",
        "family_friendly": True,
        "type": "search_result",
        "subtype": "generic",
        "is_live": False,
        "meta_url": {
            "scheme": "https",
            "netloc": f"site{n}.example.org",
            "hostname": f"site{n}.example.org",
            "favicon": "https://imgs.search.brave.com/f.png",
            "path": f"› {n}",
        },
    }
    if dated:
        item["page_age"] = "2024-05-14T09:12:00"
        item["age"] = "May 14, 2024"
    return item


class BraveImitation:
    """Answers like GET https://api.search.brave.com/res/v1/web/search, as documented."""

    def __init__(self, *, total: int = 30, rate_limited: bool = False) -> None:
        self.total = total
        self.rate_limited = rate_limited
        self.requests: list[httpx2.Request] = []

    def __call__(self, request: httpx2.Request) -> httpx2.Response:
        self.requests.append(request)
        assert request.method == "GET"
        assert (request.url.scheme, request.url.host) == ("https", "api.search.brave.com")
        assert request.url.path == "/res/v1/web/search"
        assert request.content == b""
        params = dict(request.url.params)
        assert set(params) <= DOCUMENTED_PARAMS, set(params) - DOCUMENTED_PARAMS
        assert 1 <= len(params["q"]) <= 400
        assert 1 <= int(params["count"]) <= 20
        assert params.get("freshness", "pd") in {"pd", "pw", "pm", "py"}
        assert request.headers["accept"] == "application/json"
        if request.headers.get("x-subscription-token") != KEY:
            return _error(
                422, "SUBSCRIPTION_TOKEN_INVALID", "The provided subscription token is invalid."
            )
        if self.rate_limited:
            return _error(429, "RATE_LIMITED", "Request rate limit exceeded for plan.")
        count = min(int(params["count"]), self.total)
        body: dict[str, Any] = {
            "type": "search",
            "query": {
                "original": params["q"],
                "show_strict_warning": False,
                "is_navigational": False,
                "is_news_breaking": False,
                "spellcheck_off": True,
                "country": "us",
                "bad_results": False,
                "should_fallback": False,
                "postal_code": "",
                "city": "",
                "header_country": "",
                "more_results_available": True,
                "state": "",
            },
            "mixed": {"type": "mixed", "main": [], "top": [], "side": []},
        }
        if count:  # Brave leaves "web" out when it has no web results
            body["web"] = {
                "type": "search",
                "results": [_result(n, params["q"], dated=n % 2 == 1) for n in range(1, count + 1)],
                "family_friendly": True,
            }
        return httpx2.Response(200, json=body)


@pytest.fixture
def keys(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[KeyStore]:
    monkeypatch.setenv("BRAVE_API_KEY", KEY)
    yield KeyStore(tmp_path)


async def _search(handler: Any, keys: KeyStore, queries: list[str], **kwargs: Any) -> list[Any]:
    async with httpx2.AsyncClient(transport=httpx2.MockTransport(handler)) as http:
        provider = brave.create(load_settings(), http=http, keys=keys)
        kwargs.setdefault("max_results", 5)
        return await provider.search(queries, **kwargs)


async def test_results_are_mapped_and_ranked(keys: KeyStore) -> None:
    api = BraveImitation()
    results = await _search(api, keys, ["solar panels"], max_results=3)
    (request,) = api.requests
    assert request.headers["x-subscription-token"] == KEY
    assert dict(request.url.params) == {
        "q": "solar panels",
        "count": "3",
        "text_decorations": "false",
    }
    assert [r.rank for r in results] == [1, 2, 3]
    first = results[0]
    assert first.provider == "brave"
    assert first.query == "solar panels"
    assert first.url == "https://site1.example.org/1"
    assert first.title == "Result 1 about solar panels"
    assert first.snippet == "Snippet 1 for solar panels."
    assert first.published_date == "2024-05-14T09:12:00"
    assert results[1].published_date is None


async def test_several_queries_each_ranked_from_one(keys: KeyStore) -> None:
    api = BraveImitation()
    results = await _search(api, keys, ["a", "b"], max_results=2)
    assert [(r.query, r.rank) for r in results] == [("a", 1), ("a", 2), ("b", 1), ("b", 2)]
    assert len(api.requests) == 2


@pytest.mark.parametrize(
    ("time_range", "freshness"), [("day", "pd"), ("week", "pw"), ("month", "pm"), ("year", "py")]
)
async def test_time_range_becomes_freshness(
    keys: KeyStore, time_range: str, freshness: str
) -> None:
    api = BraveImitation()
    await _search(api, keys, ["q"], time_range=time_range)
    assert api.requests[0].url.params["freshness"] == freshness


async def test_count_is_capped_at_twenty(keys: KeyStore) -> None:
    api = BraveImitation(total=50)
    results = await _search(api, keys, ["q"], max_results=50)
    assert api.requests[0].url.params["count"] == "20"
    assert len(results) == 20


async def test_no_web_section_means_no_results(keys: KeyStore) -> None:
    assert await _search(BraveImitation(total=0), keys, ["nothing"]) == []


async def test_missing_key_names_the_variable(tmp_path: Path) -> None:
    async with httpx2.AsyncClient(transport=httpx2.MockTransport(BraveImitation())) as http:
        with pytest.raises(MissingKeyError) as caught:
            brave.create(load_settings(), http=http, keys=KeyStore(tmp_path))
    message = str(caught.value)
    assert "BRAVE_API_KEY" in message
    assert "\n" not in message


async def test_rejected_key_is_reported_without_the_key(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("BRAVE_API_KEY", "wrong-key-value-123")
    with pytest.raises(ProviderError) as caught:
        await _search(BraveImitation(), KeyStore(tmp_path), ["q"])
    message = str(caught.value)
    assert "key was rejected" in message
    assert "HTTP 422" in message
    assert "BRAVE_API_KEY" in message
    assert "wrong-key-value-123" not in message


@pytest.mark.parametrize("status", [401, 403])
async def test_401_and_403_mean_the_key_was_rejected(keys: KeyStore, status: int) -> None:
    def handler(request: httpx2.Request) -> httpx2.Response:
        return _error(status, "UNAUTHORIZED", "Unauthorized")

    with pytest.raises(ProviderError, match="key was rejected"):
        await _search(handler, keys, ["q"])


async def test_rate_limit(keys: KeyStore) -> None:
    with pytest.raises(ProviderError, match="rate limited"):
        await _search(BraveImitation(rate_limited=True), keys, ["q"])


async def test_server_error_carries_status_and_detail(keys: KeyStore) -> None:
    def handler(request: httpx2.Request) -> httpx2.Response:
        return _error(500, "INTERNAL", "Something went wrong")

    with pytest.raises(ProviderError, match=r"HTTP 500 for 'q': Something went wrong"):
        await _search(handler, keys, ["q"])


async def test_malformed_json(keys: KeyStore) -> None:
    def handler(request: httpx2.Request) -> httpx2.Response:
        return httpx2.Response(200, text="<html>oops</html>")

    with pytest.raises(ProviderError, match="not valid JSON"):
        await _search(handler, keys, ["q"])


async def test_unexpected_shape(keys: KeyStore) -> None:
    def handler(request: httpx2.Request) -> httpx2.Response:
        return httpx2.Response(200, json={"type": "search", "web": {"results": "nope"}})

    with pytest.raises(ProviderError, match="unexpected answer"):
        await _search(handler, keys, ["q"])


async def test_transport_failure(keys: KeyStore) -> None:
    def handler(request: httpx2.Request) -> httpx2.Response:
        raise httpx2.ConnectError("connection refused", request=request)

    with pytest.raises(ProviderError, match="connection refused"):
        await _search(handler, keys, ["q"])


async def test_timeout(keys: KeyStore) -> None:
    def handler(request: httpx2.Request) -> httpx2.Response:
        raise httpx2.ReadTimeout("read timed out", request=request)

    with pytest.raises(ProviderError, match="timed out"):
        await _search(handler, keys, ["q"])


async def test_repr_hides_the_key() -> None:
    async with httpx2.AsyncClient() as http:
        assert KEY not in repr(brave.BraveSearch(http=http, api_key=KEY))
