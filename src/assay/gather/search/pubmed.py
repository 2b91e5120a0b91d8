"""PubMed through NCBI's E-utilities: ``esearch.fcgi`` then ``esummary.fcgi`` (JSON).

``GET {base}/esearch.fcgi?db=pubmed&term=…&retmode=json&retmax=N&sort=relevance`` answers
``{"esearchresult": {"count", "idlist": [PMID, …], "ERROR"?, "warninglist"?}}``; a window
adds ``datetype=pdat&reldate=DAYS``. ``GET {base}/esummary.fcgi?db=pubmed&id=PMID,…
&retmode=json`` answers ``{"result": {"uids": [PMID, …], PMID: {"title", "authors":
[{"name"}], "fulljournalname", "source", "pubdate", "sortpubdate" ("2020/01/05 00:00"),
"articleids": [{"idtype": "doi", "value"}]}}}``. Both take ``tool``, ``email`` (the
contact e-mail) and ``api_key`` (variable ``NCBI_API_KEY``, optional: 3 requests a second
without, 10 with; a bad one is HTTP 400 with ``{"error": "API key invalid"}``).

A result's URL is the record's PubMed page (``{pubmed_pages}/PMID/``); its snippet, as
esummary gives no abstract, names the journal, the date and the first authors.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from assay.errors import ProviderError
from assay.gather.search.common import Hit, clean_text, field, rank_hits
from assay.gather.search.scholarly import WINDOW_DAYS, ScholarlyAPI

if TYPE_CHECKING:
    import httpx2

    from assay.config import Settings
    from assay.gather.search.base import SearchResult, TimeRange
    from assay.keys import KeyStore

NAME = "pubmed"
KEY_VARIABLE = "NCBI_API_KEY"
MAX_RETMAX = 50
TOOL = "assay"


class PubMedSearch(ScholarlyAPI):
    """Articles from PubMed (NCBI E-utilities)."""

    name = NAME
    key_variable = KEY_VARIABLE

    def __init__(self, *, pages: str, **options: Any) -> None:
        super().__init__(**options)
        self.pages = pages.rstrip("/")

    async def _one(
        self, query: str, max_results: int, time_range: TimeRange | None
    ) -> list[SearchResult]:
        params = self._common() | {
            "term": query,
            "retmax": min(max_results, MAX_RETMAX),
            "sort": "relevance",
        }
        if time_range:
            params |= {"datetype": "pdat", "reldate": WINDOW_DAYS[time_range]}
        found = await self.get_json(f"{self.endpoint}/esearch.fcgi", params, query,
                                    key_rejected=_key_invalid)  # fmt: skip
        result = field(found, "esearchresult")
        if not isinstance(result, dict):
            raise ProviderError(f"{NAME}: unexpected answer: no esearchresult")
        if field(result, "ERROR"):
            raise ProviderError(f"{NAME}: {clean_text(result['ERROR'], 200)}")
        ids = [i for i in field(result, "idlist") or [] if isinstance(i, str) and i.isdigit()]
        if not ids:
            return []
        summary = await self.get_json(
            f"{self.endpoint}/esummary.fcgi", self._common() | {"id": ",".join(ids)}, query,
            key_rejected=_key_invalid,
        )  # fmt: skip
        records = field(summary, "result") or {}
        hits = (self._hit(uid, records.get(uid)) for uid in ids if isinstance(records, dict))
        return rank_hits(query, NAME, hits, max_results)

    def _common(self) -> dict[str, str | int]:
        params: dict[str, str | int] = {"db": "pubmed", "retmode": "json", "tool": TOOL}
        if self._contact:
            params["email"] = self._contact
        if self._key:
            params["api_key"] = self._key
        return params

    def _hit(self, uid: str, record: Any) -> Hit:
        if not isinstance(record, dict):
            return Hit(None, None, None)
        authors = [field(a, "name") for a in field(record, "authors") or []]
        journal = field(record, "fulljournalname", "source")
        named = [a for a in authors if isinstance(a, str)]
        said = ", ".join(named[:3]) + (" et al." if len(named) > 3 else "")
        sort_date = clean_text(field(record, "sortpubdate"))[:10].replace("/", "-")
        doi = next(
            (field(i, "value") for i in field(record, "articleids") or []
             if field(i, "idtype") == "doi"),
            None,
        )  # fmt: skip
        return Hit(
            url=f"{self.pages}/{uid}/",
            title=field(record, "title"),
            snippet=". ".join(p for p in (clean_text(journal),
                                          clean_text(field(record, "pubdate")), said) if p),
            published_date=sort_date or None,
            authors=named,
            venue=journal,
            year=int(sort_date[:4]) if sort_date[:4].isdigit() else None,
            doi=doi,
        )  # fmt: skip


def _key_invalid(status: int, body: Any) -> bool:
    error = field(body, "error")
    return isinstance(error, str) and "api key" in error.lower()


def create(settings: Settings, *, http: httpx2.AsyncClient, keys: KeyStore) -> PubMedSearch:
    """The ``pubmed`` entry point: NCBI_API_KEY if there is one; the contact e-mail."""
    scholarly = settings.scholarly
    return PubMedSearch(
        http=http,
        endpoint=scholarly.pubmed_url,
        pages=scholarly.pubmed_pages,
        key=keys.get(KEY_VARIABLE),
        contact=scholarly.contact_email,
    )
