"""Exa provider against a local imitation of the Exa search API."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx2
import pytest

from assay.config import load_settings
from assay.errors import MissingKeyError, ProviderError
from assay.gather.search import exa
from assay.keys import KeyStore

pytestmark = pytest.mark.anyio

KEY = "exa-test-key-0123456789"
NOW = datetime(2026, 3, 15, 12, 30, 0, tzinfo=UTC)
DOCUMENTED_BODY = {
    "query", "additionalQueries", "type", "category", "userLocation", "numResults",
    "includeDomains", "excludeDomains", "startCrawlDate", "endCrawlDate", "startPublishedDate",
    "endPublishedDate", "includeText", "excludeText", "moderation", "contents",
}  # fmt: skip
SEARCH_TYPES = {
    "neural",
    "fast",
    "auto",
    "deep-lite",
    "deep",
    "deep-reasoning",
    "instant",
    "keyword",
}


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


class ExaImitation:
    """Answers like POST https://api.exa.ai/search, as documented."""

    def __init__(self, *, status: int = 200) -> None:
        self.status = status
        self.bodies: list[dict[str, Any]] = []

    def __call__(self, request: httpx2.Request) -> httpx2.Response:
        assert request.method == "POST"
        assert str(request.url) == "https://api.exa.ai/search"
        assert request.headers["content-type"] == "application/json"
        body = json.loads(request.content)
        self.bodies.append(body)
        assert set(body) <= DOCUMENTED_BODY, set(body) - DOCUMENTED_BODY
        assert isinstance(body["query"], str) and body["query"]
        assert body.get("type", "auto") in SEARCH_TYPES
        assert 1 <= body.get("numResults", 10) <= 100
        assert isinstance(body.get("contents", {}), dict)
        if "startPublishedDate" in body:
            datetime.fromisoformat(body["startPublishedDate"])  # ISO 8601 or it fails here
        if request.headers.get("x-api-key") != KEY:
            return httpx2.Response(
                401,
                json={
                    "requestId": "8f1e2d3c",
                    "error": "Invalid API key",
                    "tag": "INVALID_API_KEY",
                },
            )
        if self.status != 200:
            return httpx2.Response(
                self.status, json={"requestId": "8f1e2d3c", "error": "Overloaded"}
            )
        results = []
        for n in range(1, body.get("numResults", 10) + 1):
            item: dict[str, Any] = {
                "title": f"Paper {n} on {body['query']}",
                "url": f"https://arxiv.org/abs/2307.0643{n}",
                "publishedDate": "2023-11-16T01:36:32.547Z",
                "author": "Humza Naveed",
                "id": f"https://arxiv.org/abs/2307.0643{n}",
                "image": "https://arxiv.org/pdf/2307.06435.pdf/page_1.png",
                "favicon": "https://arxiv.org/favicon.ico",
            }
            if n == 1:
                item["highlights"] = ["Such requirements have limited", "their adoption."]
                item["highlightScores"] = [0.46, 0.31]
            elif n == 2:
                item["summary"] = "A summary of paper 2."
            else:
                item["text"] = "Abstract " + "word " * 200
            results.append(item)
        return httpx2.Response(
            200,
            json={
                "requestId": "b5947044c4b78efa9552a7c89b306d95",
                "resolvedSearchType": "neural",
                "results": results,
                "searchType": body.get("type", "auto"),
                "costDollars": {"total": 0.007},
            },
        )


@pytest.fixture
def keys(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[KeyStore]:
    monkeypatch.setenv("EXA_API_KEY", KEY)
    yield KeyStore(tmp_path)


async def _search(handler: Any, keys: KeyStore, queries: list[str], **kwargs: Any) -> list[Any]:
    async with httpx2.AsyncClient(transport=httpx2.MockTransport(handler)) as http:
        provider = exa.create(load_settings(), http=http, keys=keys)
        provider._now = lambda: NOW
        kwargs.setdefault("max_results", 5)
        return await provider.search(queries, **kwargs)


async def test_request_and_results(keys: KeyStore) -> None:
    api = ExaImitation()
    results = await _search(api, keys, ["large language models"], max_results=3)
    assert api.bodies == [
        {
            "query": "large language models",
            "type": "auto",
            "numResults": 3,
            "contents": {"highlights": True},
        }
    ]
    assert [r.rank for r in results] == [1, 2, 3]
    assert results[0].url == "https://arxiv.org/abs/2307.06431"
    assert results[0].title == "Paper 1 on large language models"
    assert results[0].snippet == "Such requirements have limited … their adoption."
    assert results[0].published_date == "2023-11-16T01:36:32.547Z"
    assert results[0].provider == "exa"
    assert results[1].snippet == "A summary of paper 2."
    assert results[2].snippet.startswith("Abstract word")
    assert len(results[2].snippet) <= 500


@pytest.mark.parametrize(
    ("time_range", "start"),
    [
        ("day", "2026-03-14T12:30:00.000Z"),
        ("week", "2026-03-08T12:30:00.000Z"),
        ("month", "2026-02-13T12:30:00.000Z"),
        ("year", "2025-03-15T12:30:00.000Z"),
    ],
)
async def test_time_range_sets_start_published_date(
    keys: KeyStore, time_range: str, start: str
) -> None:
    api = ExaImitation()
    await _search(api, keys, ["q"], time_range=time_range)
    assert api.bodies[0]["startPublishedDate"] == start


async def test_missing_key_names_the_variable(tmp_path: Path) -> None:
    async with httpx2.AsyncClient(transport=httpx2.MockTransport(ExaImitation())) as http:
        with pytest.raises(MissingKeyError, match="EXA_API_KEY"):
            exa.create(load_settings(), http=http, keys=KeyStore(tmp_path))


async def test_rejected_key(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("EXA_API_KEY", "exa-wrong-key-999")
    with pytest.raises(ProviderError) as caught:
        await _search(ExaImitation(), KeyStore(tmp_path), ["q"])
    assert "key was rejected (HTTP 401); check EXA_API_KEY" in str(caught.value)
    assert "exa-wrong-key-999" not in str(caught.value)


async def test_rate_limited(keys: KeyStore) -> None:
    with pytest.raises(ProviderError, match="rate limited"):
        await _search(ExaImitation(status=429), keys, ["q"])


async def test_server_error(keys: KeyStore) -> None:
    with pytest.raises(ProviderError, match=r"HTTP 503 for 'q': Overloaded"):
        await _search(ExaImitation(status=503), keys, ["q"])


async def test_results_without_a_usable_url_are_skipped(keys: KeyStore) -> None:
    def handler(request: httpx2.Request) -> httpx2.Response:
        return httpx2.Response(
            200,
            json={
                "requestId": "x",
                "results": [
                    {"title": "no url", "id": "a"},
                    {"title": "ftp", "url": "ftp://files.example.org/x"},
                    {"title": "good", "url": "https://example.org/good"},
                ],
            },
        )

    results = await _search(handler, keys, ["q"])
    assert [(r.rank, r.title) for r in results] == [(1, "good")]
