"""DuckDuckGo (and the other engines ddgs aggregates) through the ``ddgs`` library.

No key. ``ddgs`` is an optional extra (``pip install 'assay[ddgs]'``) and is synchronous,
so each query runs in a worker thread: ``DDGS(timeout=...).text(query,
max_results=..., timelimit=d|w|m|y)`` returns dicts with ``title``, ``href`` and ``body``.
ddgs raises ``DDGSException("No results found.")`` for an empty answer, which is not a
failure here.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

from assay.errors import ConfigError, ProviderError
from assay.gather.search.common import Hit, PerQuerySearch, field, rank_hits

if TYPE_CHECKING:
    import httpx2

    from assay.config import Settings
    from assay.gather.search.base import SearchResult, TimeRange
    from assay.keys import KeyStore

NAME = "duckduckgo"
TIMELIMIT: dict[str, str] = {"day": "d", "week": "w", "month": "m", "year": "y"}
TIMEOUT_SECONDS = 10


def _ddgs_class() -> Any:
    """The ``DDGS`` class, imported when first needed so the extra stays optional."""
    try:
        from ddgs import DDGS
    except ImportError:
        raise ConfigError(
            "the duckduckgo provider needs the ddgs package: pip install 'assay[ddgs]'"
        ) from None
    return DDGS


class DuckDuckGoSearch(PerQuerySearch):
    """Web results from ddgs's metasearch (DuckDuckGo first)."""

    name = NAME

    def __init__(self, *, timeout: int = TIMEOUT_SECONDS) -> None:
        self._timeout = timeout

    async def _one(
        self, query: str, max_results: int, time_range: TimeRange | None
    ) -> list[SearchResult]:
        timelimit = TIMELIMIT[time_range] if time_range else None
        rows = await asyncio.to_thread(self._text, query, max_results, timelimit)
        hits = (
            Hit(field(row, "href", "url", "link"), field(row, "title"), field(row, "body"))
            for row in rows
        )
        return rank_hits(query, NAME, hits, max_results)

    def _text(self, query: str, max_results: int, timelimit: str | None) -> list[Any]:
        ddgs = _ddgs_class()(timeout=self._timeout)
        from ddgs.exceptions import DDGSException, RatelimitException, TimeoutException

        try:
            rows = ddgs.text(query, max_results=max_results, timelimit=timelimit)
        except RatelimitException:
            raise ProviderError(f"{NAME}: rate limited") from None
        except TimeoutException:
            raise ProviderError(f"{NAME}: the search for {query!r} timed out") from None
        except DDGSException as exc:
            if "no results" in str(exc).lower():
                return []
            raise ProviderError(f"{NAME}: the search for {query!r} failed: {exc}") from None
        if not isinstance(rows, list):
            raise ProviderError(f"{NAME}: unexpected answer from ddgs: not a list")
        return rows


def create(settings: Settings, *, http: httpx2.AsyncClient, keys: KeyStore) -> DuckDuckGoSearch:
    """The ``duckduckgo`` entry point: needs the ddgs extra, no key."""
    _ddgs_class()
    return DuckDuckGoSearch()
