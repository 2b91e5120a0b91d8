"""Tavily: ``POST https://api.tavily.com/search`` with ``Authorization: Bearer <key>``.

The key is ``TAVILY_API_KEY``. The JSON body carries ``query``, ``max_results`` (0-20),
``search_depth``, ``topic`` and, for a time window, ``time_range`` (day/week/month/year).
Results are ``results[]`` with ``url``, ``title``, ``content`` and, when Tavily has one,
``published_date``. HTTP 432/433 mean the plan's or the pay-as-you-go usage limit is
reached.
"""

from __future__ import annotations

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

NAME = "tavily"
KEY_VARIABLE = "TAVILY_API_KEY"
ENDPOINT = "https://api.tavily.com/search"
MAX_RESULTS = 20
_LIMIT_HINT = "the Tavily usage limit is reached"


class TavilySearch(KeyedSearch):
    """Web results from the Tavily Search API."""

    name = NAME

    async def _one(
        self, query: str, max_results: int, time_range: TimeRange | None
    ) -> list[SearchResult]:
        body: dict[str, Any] = {
            "query": query,
            "max_results": min(max_results, MAX_RESULTS),
            "search_depth": "basic",
            "topic": "general",
            "include_answer": False,
            "include_raw_content": False,
            "include_images": False,
        }
        if time_range:
            body["time_range"] = time_range
        payload = await request_json(
            self._http,
            "POST",
            ENDPOINT,
            provider=NAME,
            query=query,
            key_variable=KEY_VARIABLE,
            secret=self._key,
            hints={432: _LIMIT_HINT, 433: _LIMIT_HINT},
            json=body,
            headers={"Authorization": f"Bearer {self._key}"},
        )
        items = result_items(payload, NAME, "results")
        hits = (
            Hit(
                field(item, "url"),
                field(item, "title"),
                field(item, "content"),
                field(item, "published_date"),
            )
            for item in items
        )
        return rank_hits(query, NAME, hits, max_results)


def create(settings: Settings, *, http: httpx2.AsyncClient, keys: KeyStore) -> TavilySearch:
    """The ``tavily`` entry point: needs TAVILY_API_KEY."""
    return TavilySearch(http=http, api_key=keys.require(KEY_VARIABLE, "Tavily search"))
