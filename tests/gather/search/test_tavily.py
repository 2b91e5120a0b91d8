"""Tavily provider against a local imitation of the Tavily Search API."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx2
import pytest

from assay.config import load_settings
from assay.errors import MissingKeyError, ProviderError
from assay.gather.search import tavily
from assay.keys import KeyStore

pytestmark = pytest.mark.anyio

KEY = "tvly-dev-0123456789abcdef"
DOCUMENTED_BODY = {
    "query", "search_depth", "chunks_per_source", "max_results", "topic", "time_range",
    "start_date", "end_date", "days", "include_answer", "include_raw_content", "include_images",
    "include_image_descriptions", "include_favicon", "include_domains", "exclude_domains",
    "country", "auto_parameters", "exact_match",
}  # fmt: skip


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def _detail(status: int, error: str) -> httpx2.Response:
    """Tavily's documented error envelope."""
    return httpx2.Response(status, json={"detail": {"error": error}})


class TavilyImitation:
    """Answers like POST https://api.tavily.com/search, as documented."""

    def __init__(self, *, status: int = 200) -> None:
        self.status = status
        self.bodies: list[dict[str, Any]] = []
        self.requests: list[httpx2.Request] = []

    def __call__(self, request: httpx2.Request) -> httpx2.Response:
        self.requests.append(request)
        assert request.method == "POST"
        assert str(request.url) == "https://api.tavily.com/search"
        assert request.headers["content-type"] == "application/json"
        body = json.loads(request.content)
        self.bodies.append(body)
        assert set(body) <= DOCUMENTED_BODY, set(body) - DOCUMENTED_BODY
        assert "api_key" not in body  # the key travels in the Authorization header
        assert isinstance(body["query"], str) and body["query"]
        assert 0 <= body["max_results"] <= 20
        assert body.get("time_range", "day") in {"day", "week", "month", "year", "d", "w", "m", "y"}
        assert body.get("search_depth", "basic") in {"basic", "advanced", "fast", "ultra-fast"}
        assert body.get("topic", "general") in {"general", "news", "finance"}
        if request.headers.get("authorization") != f"Bearer {KEY}":
            return _detail(401, "Unauthorized: missing or invalid API key.")
        if self.status == 429:
            return _detail(429, "Your request has been blocked due to excessive requests.")
        if self.status == 432:
            return _detail(432, "This request exceeds your plan's set usage limit.")
        results = [
            {
                "title": f"Result {n}: {body['query']}",
                "url": f"https://www.example{n}.com/page",
                "content": f"Content {n} about {body['query']}.",
                "score": round(0.9 - n / 100, 8),
                "raw_content": None,
                "favicon": f"https://www.example{n}.com/favicon.ico",
            }
            for n in range(1, body["max_results"] + 1)
        ]
        if results:
            results[0]["published_date"] = "Sun, 09 Mar 2025 12:00:00 GMT"
        return httpx2.Response(
            200,
            json={
                "query": body["query"],
                "follow_up_questions": None,
                "answer": None,
                "images": [],
                "results": results,
                "response_time": "1.67",
                "request_id": "123e4567-e89b-12d3-a456-426614174111",
            },
        )


@pytest.fixture
def keys(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[KeyStore]:
    monkeypatch.setenv("TAVILY_API_KEY", KEY)
    yield KeyStore(tmp_path)


async def _search(handler: Any, keys: KeyStore, queries: list[str], **kwargs: Any) -> list[Any]:
    async with httpx2.AsyncClient(transport=httpx2.MockTransport(handler)) as http:
        provider = tavily.create(load_settings(), http=http, keys=keys)
        kwargs.setdefault("max_results", 5)
        return await provider.search(queries, **kwargs)


async def test_request_and_results(keys: KeyStore) -> None:
    api = TavilyImitation()
    results = await _search(api, keys, ["leo messi"], max_results=3)
    assert api.requests[0].headers["authorization"] == f"Bearer {KEY}"
    assert api.bodies == [
        {
            "query": "leo messi",
            "max_results": 3,
            "search_depth": "basic",
            "topic": "general",
            "include_answer": False,
            "include_raw_content": False,
            "include_images": False,
        }
    ]
    assert [(r.rank, r.url) for r in results] == [
        (1, "https://www.example1.com/page"),
        (2, "https://www.example2.com/page"),
        (3, "https://www.example3.com/page"),
    ]
    assert results[0].title == "Result 1: leo messi"
    assert results[0].snippet == "Content 1 about leo messi."
    assert results[0].provider == "tavily"
    assert results[0].published_date == "Sun, 09 Mar 2025 12:00:00 GMT"
    assert results[1].published_date is None


@pytest.mark.parametrize("time_range", ["day", "week", "month", "year"])
async def test_time_range_is_passed_through(keys: KeyStore, time_range: str) -> None:
    api = TavilyImitation()
    await _search(api, keys, ["q"], time_range=time_range)
    assert api.bodies[0]["time_range"] == time_range


async def test_max_results_capped_at_twenty(keys: KeyStore) -> None:
    api = TavilyImitation()
    results = await _search(api, keys, ["q"], max_results=40)
    assert api.bodies[0]["max_results"] == 20
    assert len(results) == 20


async def test_missing_key_names_the_variable(tmp_path: Path) -> None:
    async with httpx2.AsyncClient(transport=httpx2.MockTransport(TavilyImitation())) as http:
        with pytest.raises(MissingKeyError, match="TAVILY_API_KEY"):
            tavily.create(load_settings(), http=http, keys=KeyStore(tmp_path))


async def test_key_from_the_key_store(tmp_path: Path) -> None:
    store = KeyStore(tmp_path)
    store.save("TAVILY_API_KEY", KEY)
    assert len(await _search(TavilyImitation(), store, ["q"], max_results=1)) == 1


async def test_rejected_key(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TAVILY_API_KEY", "tvly-wrong-key-000")
    with pytest.raises(ProviderError) as caught:
        await _search(TavilyImitation(), KeyStore(tmp_path), ["q"])
    assert "key was rejected (HTTP 401)" in str(caught.value)
    assert "TAVILY_API_KEY" in str(caught.value)
    assert "tvly-wrong-key-000" not in str(caught.value)


async def test_rate_limited(keys: KeyStore) -> None:
    with pytest.raises(ProviderError, match="rate limited"):
        await _search(TavilyImitation(status=429), keys, ["q"])


async def test_usage_limit(keys: KeyStore) -> None:
    with pytest.raises(ProviderError) as caught:
        await _search(TavilyImitation(status=432), keys, ["q"])
    message = str(caught.value)
    assert "HTTP 432" in message
    assert "usage limit" in message


async def test_bad_request_detail(keys: KeyStore) -> None:
    def handler(request: httpx2.Request) -> httpx2.Response:
        return _detail(400, "Invalid topic. Must be 'general', 'news', or 'finance'.")

    with pytest.raises(ProviderError, match=r"HTTP 400 for 'q': Invalid topic"):
        await _search(handler, keys, ["q"])


async def test_malformed_json(keys: KeyStore) -> None:
    def handler(request: httpx2.Request) -> httpx2.Response:
        return httpx2.Response(200, content=b"{not json")

    with pytest.raises(ProviderError, match="not valid JSON"):
        await _search(handler, keys, ["q"])
