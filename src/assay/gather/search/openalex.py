"""OpenAlex: ``GET https://api.openalex.org/works?search=…`` (JSON), key optional.

Parameters: ``search`` (full text over titles, abstracts and full texts), ``per-page``
(1-200), ``filter`` (``from_publication_date:YYYY-MM-DD`` for a window), ``select`` (the
fields returned), ``mailto`` (the contact e-mail: the "polite pool") and ``api_key``
(variable ``OPENALEX_API_KEY``, optional). The answer is ``{"meta": {"count", …},
"results": [work, …]}``; a work has ``id``, ``doi`` (a https://doi.org/ URL),
``display_name``, ``publication_year``, ``publication_date``, ``authorships[].author.
display_name``, ``primary_location`` and ``best_oa_location`` (each with
``landing_page_url``, ``pdf_url`` and ``source.display_name``, the venue) and
``abstract_inverted_index`` (each word of the abstract with its positions). An error is
HTTP 4xx with ``{"error": …, "message": …}``.

A result's URL is the open-access copy's landing page where there is one, else the
publisher's, else the DOI, else the OpenAlex record.
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

NAME = "openalex"
KEY_VARIABLE = "OPENALEX_API_KEY"
MAX_PER_PAGE = 50
SELECT = ("id,doi,display_name,publication_year,publication_date,authorships,"
          "primary_location,best_oa_location,abstract_inverted_index")  # fmt: skip
_ABSTRACT_WORDS = 120  # the snippet needs the start of an abstract, not all of it
DOI_PREFIX = "https://doi.org/"


class OpenAlexSearch(ScholarlyAPI):
    """Works from the OpenAlex API."""

    name = NAME
    key_variable = KEY_VARIABLE

    async def _one(
        self, query: str, max_results: int, time_range: TimeRange | None
    ) -> list[SearchResult]:
        params: dict[str, str | int] = {
            "search": query,
            "per-page": min(max_results, MAX_PER_PAGE),
            "select": SELECT,
        }
        if time_range:
            since = window_start(time_range).date().isoformat()
            params["filter"] = f"from_publication_date:{since}"
        if self._contact:
            params["mailto"] = self._contact
        if self._key:
            params["api_key"] = self._key
        payload = await self.get_json(f"{self.endpoint}/works", params, query)
        works = result_items(payload, NAME, "results")
        return rank_hits(query, NAME, (_hit(w) for w in works), max_results)


def abstract_of(inverted: Any, limit: int = _ABSTRACT_WORDS) -> str:
    """The abstract's first ``limit`` words from OpenAlex's inverted index."""
    if not isinstance(inverted, dict):
        return ""
    placed: dict[int, str] = {}
    for word, positions in inverted.items():
        for position in positions if isinstance(positions, list) else ():
            if isinstance(position, int) and 0 <= position < limit:
                placed[position] = str(word)
    return " ".join(placed[p] for p in sorted(placed))


def _hit(work: Any) -> Hit:
    best, primary = field(work, "best_oa_location") or {}, field(work, "primary_location") or {}
    doi = field(work, "doi")
    source = field(primary, "source") or field(best, "source") or {}
    authors = [field(field(a, "author"), "display_name") for a in field(work, "authorships") or []]
    return Hit(
        url=field(best, "landing_page_url", "pdf_url")
        or field(primary, "landing_page_url")
        or doi
        or field(work, "id"),
        title=field(work, "display_name", "title"),
        snippet=abstract_of(field(work, "abstract_inverted_index")),
        published_date=field(work, "publication_date"),
        authors=[a for a in authors if isinstance(a, str)],
        venue=field(source, "display_name"),
        year=field(work, "publication_year"),
        doi=doi.removeprefix(DOI_PREFIX) if isinstance(doi, str) else None,
    )


def create(settings: Settings, *, http: httpx2.AsyncClient, keys: KeyStore) -> OpenAlexSearch:
    """The ``openalex`` entry point: OPENALEX_API_KEY if there is one; the contact e-mail."""
    scholarly = settings.scholarly
    return OpenAlexSearch(
        http=http,
        endpoint=scholarly.openalex_url,
        key=keys.get(KEY_VARIABLE),
        contact=scholarly.contact_email,
    )
