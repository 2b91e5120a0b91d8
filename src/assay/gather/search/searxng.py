"""SearXNG: ``GET {base}/search?q=...&format=json`` on an instance the user runs or trusts.

No key; the base URL comes from ``--searxng-url`` / ``ASSAY_SEARXNG_URL``. The instance
must have ``json`` among ``search.formats`` in its settings.yml, or it answers 403.
Parameters: ``q``, ``format=json``, ``pageno`` (from 1) and ``time_range``
(day/week/month/year). SearXNG has no result-count parameter, so pages are read until
``max_results`` are in hand (at most ``MAX_PAGES``). Results are ``results[]`` with
``url``, ``title``, ``content`` and ``publishedDate`` (null when undated);
``unresponsive_engines`` lists ``[engine, reason]`` pairs for engines that failed.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from assay.errors import ConfigError, ProviderError
from assay.gather.search.common import (
    Hit,
    PerQuerySearch,
    clean_text,
    expect_list,
    field,
    rank_hits,
    request_json,
)

if TYPE_CHECKING:
    import httpx2

    from assay.config import Settings
    from assay.gather.search.base import SearchResult, TimeRange
    from assay.keys import KeyStore

NAME = "searxng"
MAX_PAGES = 3
_FORMAT_HINT = "the instance refuses format=json: add json to search.formats in its settings.yml"


class SearxngSearch(PerQuerySearch):
    """Web results from a SearXNG instance's JSON API."""

    name = NAME

    def __init__(self, *, http: httpx2.AsyncClient, base_url: str) -> None:
        self._http = http
        parts = urlsplit(base_url.strip())
        # The base URL, or the search URL itself (as the lab prints it): both end in /search.
        path = parts.path.rstrip("/").removesuffix("/search")
        self.endpoint = f"{parts.scheme}://{parts.netloc}{path}/search"

    def __repr__(self) -> str:
        return f"SearxngSearch(endpoint={self.endpoint!r})"

    async def _one(
        self, query: str, max_results: int, time_range: TimeRange | None
    ) -> list[SearchResult]:
        hits: list[Hit] = []
        seen: set[str] = set()
        for page in range(1, MAX_PAGES + 1):
            items = await self._page(query, page, time_range, first=page == 1)
            fresh = [item for item in items if clean_text(field(item, "url")) not in seen]
            for item in fresh:
                seen.add(clean_text(field(item, "url")))
                hits.append(
                    Hit(
                        field(item, "url"),
                        field(item, "title"),
                        field(item, "content"),
                        field(item, "publishedDate", "pubdate"),
                    )
                )
            if not fresh or len(hits) >= max_results:
                break
        return rank_hits(query, NAME, hits, max_results)

    async def _page(
        self, query: str, page: int, time_range: TimeRange | None, *, first: bool
    ) -> list[Any]:
        params: dict[str, str | int] = {"q": query, "format": "json", "pageno": page}
        if time_range:
            params["time_range"] = time_range
        payload = await request_json(
            self._http,
            "GET",
            self.endpoint,
            provider=NAME,
            query=query,
            hints={403: _FORMAT_HINT},
            params=params,
            headers={"Accept": "application/json"},
        )
        if not isinstance(payload, dict):
            raise ProviderError(f"{NAME}: unexpected answer: not a JSON object")
        items = expect_list(payload.get("results"), NAME, "results")
        if first and not items:
            failed = _unresponsive(payload.get("unresponsive_engines"))
            if failed:
                raise ProviderError(f"{NAME}: no results; engines that failed: {failed}")
        return items


def _unresponsive(value: Any) -> str:
    if not isinstance(value, list):
        return ""
    named = []
    for entry in value:
        if isinstance(entry, list) and entry and isinstance(entry[0], str):
            reason = entry[1] if len(entry) > 1 and isinstance(entry[1], str) else ""
            named.append(f"{entry[0]} ({reason})" if reason else entry[0])
    return clean_text(", ".join(named), 200)


def create(settings: Settings, *, http: httpx2.AsyncClient, keys: KeyStore) -> SearxngSearch:
    """The ``searxng`` entry point: needs the instance's base URL in the settings."""
    base = (settings.searxng_url or "").strip()
    if not base:
        raise ConfigError(
            "the searxng provider needs the instance's URL: "
            "pass --searxng-url or set ASSAY_SEARXNG_URL"
        )
    parts = urlsplit(base)
    if parts.scheme.lower() not in ("http", "https") or not parts.netloc:
        raise ConfigError(f"searxng URL must be an http(s) URL, got {base!r}")
    return SearxngSearch(http=http, base_url=base)
