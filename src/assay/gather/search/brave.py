"""Brave Search: ``GET https://api.search.brave.com/res/v1/web/search``.

The key goes in the ``X-Subscription-Token`` header (variable ``BRAVE_API_KEY``). Query
parameters: ``q``, ``count``, ``freshness`` (pd/pw/pm/py) and ``text_decorations``. Results
are ``web.results[]`` with ``url``, ``title``, ``description`` and, when Brave dated the
page, ``page_age`` (ISO date) and ``age`` (as displayed). ``count`` is at most 20. An
invalid key is answered with HTTP 422 and the code ``SUBSCRIPTION_TOKEN_INVALID``.
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

NAME = "brave"
KEY_VARIABLE = "BRAVE_API_KEY"
ENDPOINT = "https://api.search.brave.com/res/v1/web/search"
MAX_COUNT = 20
FRESHNESS: dict[str, str] = {"day": "pd", "week": "pw", "month": "pm", "year": "py"}


class BraveSearch(KeyedSearch):
    """Web results from the Brave Search API."""

    name = NAME

    async def _one(
        self, query: str, max_results: int, time_range: TimeRange | None
    ) -> list[SearchResult]:
        params: dict[str, str | int] = {
            "q": query,
            "count": min(max_results, MAX_COUNT),
            "text_decorations": "false",  # plain snippets, no highlighting markup
        }
        if time_range:
            params["freshness"] = FRESHNESS[time_range]
        payload = await request_json(
            self._http,
            "GET",
            ENDPOINT,
            provider=NAME,
            query=query,
            key_variable=KEY_VARIABLE,
            secret=self._key,
            key_rejected=_token_invalid,
            params=params,
            headers={"Accept": "application/json", "X-Subscription-Token": self._key},
        )
        items = result_items(payload, NAME, "web", "results")
        hits = (
            Hit(
                field(item, "url"),
                field(item, "title"),
                field(item, "description"),
                field(item, "page_age", "age"),
            )
            for item in items
        )
        return rank_hits(query, NAME, hits, max_results)


def _token_invalid(status: int, body: Any) -> bool:
    error = body.get("error") if isinstance(body, dict) else None
    code = error.get("code") if isinstance(error, dict) else None
    return code == "SUBSCRIPTION_TOKEN_INVALID"


def create(settings: Settings, *, http: httpx2.AsyncClient, keys: KeyStore) -> BraveSearch:
    """The ``brave`` entry point: needs BRAVE_API_KEY."""
    return BraveSearch(http=http, api_key=keys.require(KEY_VARIABLE, "Brave search"))
