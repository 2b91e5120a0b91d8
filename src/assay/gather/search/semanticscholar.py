"""Semantic Scholar: ``GET https://api.semanticscholar.org/graph/v1/paper/search`` (JSON).

Parameters: ``query`` (plain text), ``limit`` (at most 100), ``fields`` (the paper fields
returned) and ``publicationDateOrYear`` (``2024-05-01:`` for a window). The key, optional,
goes in the ``x-api-key`` header (variable ``SEMANTIC_SCHOLAR_API_KEY``); without one,
requests share a public pool that answers HTTP 429 when it is busy. The answer is
``{"total", "offset", "next", "data": [paper, …]}`` (``data`` absent when nothing
matched); a paper has ``paperId``, ``url`` (its Semantic Scholar page), ``title``,
``abstract``, ``venue``, ``year``, ``publicationDate``, ``authors[].name``,
``externalIds`` (``DOI``, ``ArXiv``, …) and ``openAccessPdf`` (``url``, or null). An
error is HTTP 4xx with ``{"error": …}`` or ``{"message": …}``; a bad key is 403.

A result's URL is the open-access PDF where there is one, else the arXiv abstract page,
else the paper's Semantic Scholar page.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from assay.gather.search.common import Hit, field, rank_hits, result_items
from assay.gather.search.scholarly import ScholarlyAPI, window_start

if TYPE_CHECKING:
    import httpx2

    from assay.config import Settings
    from assay.gather.search.base import SearchResult, TimeRange
    from assay.keys import KeyStore

NAME = "semanticscholar"
KEY_VARIABLE = "SEMANTIC_SCHOLAR_API_KEY"
MAX_LIMIT = 100
FIELDS = "title,url,abstract,venue,year,publicationDate,authors,externalIds,openAccessPdf"
ARXIV_PAGE = "https://arxiv.org/abs/"


class SemanticScholarSearch(ScholarlyAPI):
    """Papers from the Semantic Scholar Academic Graph API."""

    name = NAME
    key_variable = KEY_VARIABLE

    async def _one(
        self, query: str, max_results: int, time_range: TimeRange | None
    ) -> list[SearchResult]:
        params: dict[str, str | int] = {
            "query": query,
            "limit": min(max_results, MAX_LIMIT),
            "fields": FIELDS,
        }
        if time_range:
            params["publicationDateOrYear"] = f"{window_start(time_range).date().isoformat()}:"
        headers = {"x-api-key": self._key} if self._key else None
        payload = await self.get_json(
            f"{self.endpoint}/paper/search", params, query, headers=headers
        )
        papers = result_items(payload, NAME, "data")
        return rank_hits(query, NAME, (_hit(p) for p in papers), max_results)


def _hit(paper: Any) -> Hit:
    ids = field(paper, "externalIds") or {}
    arxiv = field(ids, "ArXiv")
    return Hit(
        url=field(field(paper, "openAccessPdf"), "url")
        or (f"{ARXIV_PAGE}{arxiv}" if isinstance(arxiv, str) else None)
        or field(paper, "url"),
        title=field(paper, "title"),
        snippet=field(paper, "abstract"),
        published_date=field(paper, "publicationDate"),
        authors=[field(a, "name") for a in field(paper, "authors") or []],
        venue=field(paper, "venue"),
        year=field(paper, "year"),
        doi=field(ids, "DOI"),
    )


def create(
    settings: Settings, *, http: httpx2.AsyncClient, keys: KeyStore
) -> SemanticScholarSearch:
    """The ``semanticscholar`` entry point: SEMANTIC_SCHOLAR_API_KEY if there is one."""
    return SemanticScholarSearch(
        http=http, endpoint=settings.scholarly.semantic_scholar_url, key=keys.get(KEY_VARIABLE)
    )
