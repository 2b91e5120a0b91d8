"""Serper provider against a local imitation of the Serper Google Search API."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx2
import pytest

from assay.config import load_settings
from assay.errors import MissingKeyError, ProviderError
from assay.gather.search import serper
from assay.keys import KeyStore

pytestmark = pytest.mark.anyio

KEY = "serper-test-key-0123456789"
DOCUMENTED_BODY = {"q", "gl", "hl", "num", "page", "tbs", "autocorrect", "location", "type"}


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


class SerperImitation:
    """Answers like POST https://google.serper.dev/search, as documented."""

    def __init__(self, *, status: int = 200) -> None:
        self.status = status
        self.bodies: list[dict[str, Any]] = []

    def __call__(self, request: httpx2.Request) -> httpx2.Response:
        assert request.method == "POST"
        assert str(request.url) == "https://google.serper.dev/search"
        assert request.headers["content-type"] == "application/json"
        body = json.loads(request.content)
        self.bodies.append(body)
        assert set(body) <= DOCUMENTED_BODY, set(body) - DOCUMENTED_BODY
        assert isinstance(body["q"], str) and body["q"]
        assert 1 <= body.get("num", 10) <= 100
        assert body.get("tbs", "qdr:d") in {"qdr:h", "qdr:d", "qdr:w", "qdr:m", "qdr:y"}
        if request.headers.get("x-api-key") != KEY:
            return httpx2.Response(403, json={"message": "Unauthorized.", "statusCode": 403})
        if self.status == 400:
            return httpx2.Response(400, json={"message": "Not enough credits", "statusCode": 400})
        if self.status == 429:
            return httpx2.Response(429, json={"message": "Too many requests", "statusCode": 429})
        organic = []
        for n in range(1, body.get("num", 10) + 1):
            item: dict[str, Any] = {
                "title": f"Google result {n}",
                "link": f"https://www.result{n}.com/",
                "snippet": f"Snippet {n} for {body['q']}",
                "position": n,
            }
            if n == 2:
                item["date"] = "Mar 4, 2024"
                item["sitelinks"] = [
                    {"title": "Support", "link": "https://www.result2.com/support"}
                ]
            organic.append(item)
        return httpx2.Response(
            200,
            json={
                "searchParameters": {
                    "q": body["q"],
                    "gl": "us",
                    "hl": "en",
                    "type": "search",
                    "num": body.get("num", 10),
                    "engine": "google",
                },
                "knowledgeGraph": {"title": "Apple", "type": "Technology company"},
                "organic": organic,
                "peopleAlsoAsk": [
                    {"question": "Q?", "snippet": "A.", "title": "T", "link": "https://a.example/"}
                ],
                "relatedSearches": [{"query": "related"}],
                "credits": 1,
            },
        )


@pytest.fixture
def keys(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[KeyStore]:
    monkeypatch.setenv("SERPER_API_KEY", KEY)
    yield KeyStore(tmp_path)


async def _search(handler: Any, keys: KeyStore, queries: list[str], **kwargs: Any) -> list[Any]:
    async with httpx2.AsyncClient(transport=httpx2.MockTransport(handler)) as http:
        provider = serper.create(load_settings(), http=http, keys=keys)
        kwargs.setdefault("max_results", 5)
        return await provider.search(queries, **kwargs)


async def test_request_and_results(keys: KeyStore) -> None:
    api = SerperImitation()
    results = await _search(api, keys, ["apple inc"], max_results=3)
    assert api.bodies == [{"q": "apple inc", "num": 3}]
    assert [(r.rank, r.url) for r in results] == [
        (1, "https://www.result1.com/"),
        (2, "https://www.result2.com/"),
        (3, "https://www.result3.com/"),
    ]
    assert results[0].snippet == "Snippet 1 for apple inc"
    assert results[0].provider == "serper"
    assert results[1].published_date == "Mar 4, 2024"
    assert results[0].published_date is None


@pytest.mark.parametrize(
    ("time_range", "tbs"),
    [("day", "qdr:d"), ("week", "qdr:w"), ("month", "qdr:m"), ("year", "qdr:y")],
)
async def test_time_range_becomes_tbs(keys: KeyStore, time_range: str, tbs: str) -> None:
    api = SerperImitation()
    await _search(api, keys, ["q"], time_range=time_range)
    assert api.bodies[0]["tbs"] == tbs


async def test_missing_key_names_the_variable(tmp_path: Path) -> None:
    async with httpx2.AsyncClient(transport=httpx2.MockTransport(SerperImitation())) as http:
        with pytest.raises(MissingKeyError, match="SERPER_API_KEY"):
            serper.create(load_settings(), http=http, keys=KeyStore(tmp_path))


async def test_rejected_key(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SERPER_API_KEY", "serper-wrong-key-42")
    with pytest.raises(ProviderError) as caught:
        await _search(SerperImitation(), KeyStore(tmp_path), ["q"])
    assert "key was rejected (HTTP 403); check SERPER_API_KEY" in str(caught.value)
    assert "serper-wrong-key-42" not in str(caught.value)


async def test_out_of_credits(keys: KeyStore) -> None:
    with pytest.raises(ProviderError, match=r"HTTP 400 for 'q': Not enough credits"):
        await _search(SerperImitation(status=400), keys, ["q"])


async def test_rate_limited(keys: KeyStore) -> None:
    with pytest.raises(ProviderError, match="rate limited"):
        await _search(SerperImitation(status=429), keys, ["q"])


async def test_retry_after_is_reported(keys: KeyStore) -> None:
    def handler(request: httpx2.Request) -> httpx2.Response:
        return httpx2.Response(429, headers={"Retry-After": "7"}, json={"message": "slow down"})

    with pytest.raises(ProviderError, match=r"rate limited \(HTTP 429\); retry after 7 s"):
        await _search(handler, keys, ["q"])


async def test_no_organic_section_means_no_results(keys: KeyStore) -> None:
    def handler(request: httpx2.Request) -> httpx2.Response:
        return httpx2.Response(200, json={"searchParameters": {"q": "q"}, "credits": 1})

    assert await _search(handler, keys, ["q"]) == []
