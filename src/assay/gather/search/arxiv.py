"""arXiv: ``GET https://export.arxiv.org/api/query`` (the Atom API), no key.

Parameters: ``search_query`` (fielded terms such as ``all:tides``, joined by ``AND`` /
``OR`` / ``ANDNOT``; ``submittedDate:[YYYYMMDDHHMM TO YYYYMMDDHHMM]`` narrows to a
window), ``start``, ``max_results``, ``sortBy`` (relevance, lastUpdatedDate,
submittedDate) and ``sortOrder``. The query's content words are asked as ``all:`` terms
joined by ``OR``, sorted by relevance (the papers matching most of them first); a time
range adds the submittedDate window. The answer is an Atom 1.0 feed: each ``entry`` has
``id`` (the abs page), ``title``, ``summary`` (the abstract), ``published``, ``author/name``,
``link`` (``rel=alternate`` the abs page), and in the arxiv namespace ``doi`` and
``journal_ref`` when the authors gave them. An error is a feed whose one entry's id is
``http://arxiv.org/api/errors#…`` and whose summary says what was wrong (HTTP 400). The
terms of use ask for one request every three seconds.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from lxml import etree

from assay.errors import ProviderError
from assay.gather.search.common import Hit, check_answer, clean_text, rank_hits
from assay.gather.search.scholarly import ScholarlyAPI, search_terms, window_start

if TYPE_CHECKING:
    import httpx2

    from assay.config import Settings
    from assay.gather.search.base import SearchResult, TimeRange
    from assay.keys import KeyStore

NAME = "arxiv"
MAX_RESULTS = 50
_ATOM = "{http://www.w3.org/2005/Atom}"
_ARXIV = "{http://arxiv.org/schemas/atom}"
_ERROR_ID = "arxiv.org/api/errors"


class ArxivSearch(ScholarlyAPI):
    """Papers from the arXiv API."""

    name = NAME
    interval = 3.0  # arXiv's terms: one request every three seconds

    async def _one(
        self, query: str, max_results: int, time_range: TimeRange | None
    ) -> list[SearchResult]:
        terms = search_terms(query)
        if not terms:
            return []
        expression = " OR ".join(f"all:{term}" for term in terms)
        if time_range:
            expression = f"({expression}) AND {submitted_window(time_range)}"
        params: dict[str, str | int] = {
            "search_query": expression,
            "start": 0,
            "max_results": min(max_results, MAX_RESULTS),
            "sortBy": "relevance",
            "sortOrder": "descending",
        }
        answer = await self.get(self.endpoint, params, query, accept="application/atom+xml")
        if answer.status == 429:
            check_answer(429, answer.headers, None, "", provider=NAME, query=query)
        entries = parse_feed(answer.body)  # an error feed raises with arXiv's own message
        if not 200 <= answer.status < 300:
            raise ProviderError(f"{NAME}: HTTP {answer.status} for {query!r}")
        return rank_hits(query, NAME, (_hit(entry) for entry in entries), max_results)


def submitted_window(time_range: TimeRange, now: datetime | None = None) -> str:
    """The ``submittedDate`` clause for the last day, week, month or year."""
    end = now or datetime.now(UTC)
    start = window_start(time_range, end)
    return f"submittedDate:[{start:%Y%m%d%H%M} TO {end:%Y%m%d%H%M}]"


def parse_feed(body: bytes) -> list[Any]:
    """The feed's entries; an error feed, or anything not an Atom feed, is a ProviderError.

    A feed declares no DTD: one with a DOCTYPE (entities that could expand) is refused
    unread, and the parser resolves no entity and reads nothing from the network anyway.
    """
    if b"<!DOCTYPE" in body.upper() or b"<!ENTITY" in body.upper():
        raise ProviderError(f"{NAME}: unexpected answer: a document type declaration")
    parser = etree.XMLParser(
        resolve_entities=False, no_network=True, load_dtd=False, huge_tree=False
    )
    try:
        root = etree.fromstring(body, parser=parser)
    except etree.XMLSyntaxError:
        raise ProviderError(f"{NAME}: unexpected answer: not an Atom feed") from None
    if root.tag != f"{_ATOM}feed":
        raise ProviderError(f"{NAME}: unexpected answer: not an Atom feed")
    entries: list[Any] = list(root.findall(f"{_ATOM}entry"))
    for entry in entries:
        if _ERROR_ID in (entry.findtext(f"{_ATOM}id") or ""):
            message = clean_text(entry.findtext(f"{_ATOM}summary"), 200) or "an error"
            raise ProviderError(f"{NAME}: the API refused the query: {message}")
    return entries


def _hit(entry: Any) -> Hit:
    page = entry.findtext(f"{_ATOM}id")
    for link in entry.findall(f"{_ATOM}link"):
        if link.get("rel") == "alternate" and link.get("href"):
            page = link.get("href")
    published = entry.findtext(f"{_ATOM}published") or ""
    year = int(published[:4]) if published[:4].isdigit() else None
    return Hit(
        url=page,
        title=entry.findtext(f"{_ATOM}title"),
        snippet=entry.findtext(f"{_ATOM}summary"),
        published_date=published,
        authors=[a.findtext(f"{_ATOM}name") for a in entry.findall(f"{_ATOM}author")],
        venue=entry.findtext(f"{_ARXIV}journal_ref") or "arXiv",
        year=year,
        doi=entry.findtext(f"{_ARXIV}doi"),
    )


def create(settings: Settings, *, http: httpx2.AsyncClient, keys: KeyStore) -> ArxivSearch:
    """The ``arxiv`` entry point: no key; the endpoint from ``scholarly.arxiv_url``."""
    return ArxivSearch(http=http, endpoint=settings.scholarly.arxiv_url)
