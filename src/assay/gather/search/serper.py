"""Serper (Google results): ``POST https://google.serper.dev/search`` with ``X-API-KEY``.

The key is ``SERPER_API_KEY``. The JSON body carries ``q``, ``num`` and, for a time
window, ``tbs`` (``qdr:d``/``qdr:w``/``qdr:m``/``qdr:y``). Results are ``organic[]`` with
``link``, ``title``, ``snippet``, ``position`` and, when Google shows one, ``date``.
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

NAME = "serper"
KEY_VARIABLE = "SERPER_API_KEY"
ENDPOINT = "https://google.serper.dev/search"
MAX_NUM = 100
TBS: dict[str, str] = {"day": "qdr:d", "week": "qdr:w", "month": "qdr:m", "year": "qdr:y"}


class SerperSearch(KeyedSearch):
    """Google web results through the Serper API."""

    name = NAME

    async def _one(
        self, query: str, max_results: int, time_range: TimeRange | None
    ) -> list[SearchResult]:
        body: dict[str, Any] = {"q": query, "num": min(max_results, MAX_NUM)}
        if time_range:
            body["tbs"] = TBS[time_range]
        payload = await request_json(
            self._http,
            "POST",
            ENDPOINT,
            provider=NAME,
            query=query,
            key_variable=KEY_VARIABLE,
            secret=self._key,
            json=body,
            headers={"X-API-KEY": self._key},
        )
        items = result_items(payload, NAME, "organic")
        hits = (
            Hit(
                field(item, "link"),
                field(item, "title"),
                field(item, "snippet"),
                field(item, "date"),
            )
            for item in items
        )
        return rank_hits(query, NAME, hits, max_results)


def create(settings: Settings, *, http: httpx2.AsyncClient, keys: KeyStore) -> SerperSearch:
    """The ``serper`` entry point: needs SERPER_API_KEY."""
    return SerperSearch(http=http, api_key=keys.require(KEY_VARIABLE, "Serper search"))
