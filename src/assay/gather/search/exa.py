"""Exa: ``POST https://api.exa.ai/search`` with the key in the ``x-api-key`` header.

The key is ``EXA_API_KEY``. The JSON body carries ``query``, ``numResults``, ``type`` and
``contents`` (here: highlights), and ``startPublishedDate`` (ISO 8601) for a time window.
Results are ``results[]`` with ``url``, ``title``, ``publishedDate`` and whichever contents
were asked for: ``highlights`` (a list of excerpts), ``summary`` or ``text``.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any

from assay.gather.search.common import (
    Hit,
    KeyedSearch,
    field,
    rank_hits,
    request_json,
    result_items,
)

if TYPE_CHECKING:
    import httpx2

    from assay.config import Settings
    from assay.gather.search.base import SearchResult, TimeRange
    from assay.keys import KeyStore

NAME = "exa"
KEY_VARIABLE = "EXA_API_KEY"
ENDPOINT = "https://api.exa.ai/search"
MAX_RESULTS = 100
WINDOWS: dict[str, timedelta] = {
    "day": timedelta(days=1),
    "week": timedelta(days=7),
    "month": timedelta(days=30),
    "year": timedelta(days=365),
}


def _utc_now() -> datetime:
    return datetime.now(UTC)


class ExaSearch(KeyedSearch):
    """Web results from the Exa search API."""

    name = NAME

    def __init__(
        self,
        *,
        http: httpx2.AsyncClient,
        api_key: str,
        now: Callable[[], datetime] = _utc_now,
    ) -> None:
        self._http = http
        self._key = api_key
        self._now = now

    def __repr__(self) -> str:
        return "ExaSearch(api_key=****)"

    async def _one(
        self, query: str, max_results: int, time_range: TimeRange | None
    ) -> list[SearchResult]:
        body: dict[str, Any] = {
            "query": query,
            "type": "auto",
            "numResults": min(max_results, MAX_RESULTS),
            "contents": {"highlights": True},
        }
        if time_range:
            start = self._now().astimezone(UTC) - WINDOWS[time_range]
            body["startPublishedDate"] = start.strftime("%Y-%m-%dT%H:%M:%S.000Z")
        payload = await request_json(
            self._http,
            "POST",
            ENDPOINT,
            provider=NAME,
            query=query,
            key_variable=KEY_VARIABLE,
            secret=self._key,
            json=body,
            headers={"x-api-key": self._key},
        )
        items = result_items(payload, NAME, "results")
        hits = (
            Hit(
                field(item, "url"),
                field(item, "title"),
                _snippet(item),
                field(item, "publishedDate"),
            )
            for item in items
        )
        return rank_hits(query, NAME, hits, max_results)


def _snippet(item: Any) -> Any:
    highlights = field(item, "highlights")
    if isinstance(highlights, list):
        parts = [h for h in highlights if isinstance(h, str) and h.strip()]
        if parts:
            return " … ".join(parts)
    return field(item, "summary", "text")


def create(settings: Settings, *, http: httpx2.AsyncClient, keys: KeyStore) -> ExaSearch:
    """The ``exa`` entry point: needs EXA_API_KEY."""
    return ExaSearch(http=http, api_key=keys.require(KEY_VARIABLE, "Exa search"))
