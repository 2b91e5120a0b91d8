"""The lab's imitations of the scholarly APIs, over the lab's own corpus.

Each lab page is also a paper, with a bibliographic record made up from its document id
(stable from run to run): two authors, a venue, a publication date, a DOI under the
10.5555 test prefix, an arXiv-style id and a PubMed id. The imitations answer in each
API's documented shape (``gather/search/arxiv.py`` and its siblings describe them):

- ``/arxiv/api/query``: an Atom feed; a ``max_results`` over 2000 is the error feed;
- ``/openalex/works``: ``{"meta", "results"}``;
- ``/s2/graph/v1/paper/search``: ``{"total", "offset", "data"}`` (no ``data`` when empty);
  an ``x-api-key`` other than ``LAB_KEY`` is 403;
- ``/pubmed/eutils/esearch.fcgi`` and ``esummary.fcgi``: E-utilities JSON; an ``api_key``
  other than ``LAB_KEY`` is 400 "API key invalid"; ``/pubmed/pages/<pmid>/`` serves the
  paper's page, as pubmed.ncbi.nlm.nih.gov would.

A paper's link (the abs page, the open-access copy) is its lab page. Dates narrow results
as each API's date parameter says.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from html import escape
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from assay.lab.pages import LabPage
    from assay.lab.server import Lab

LAB_KEY = "lab-scholarly-key"
MAX_ARXIV_RESULTS = 2000
_SURNAMES = ("Aaltonen", "Brekke", "Castell", "Dahl", "Eriksen", "Falk", "Grieg", "Holm",
             "Ibsen", "Jensen", "Krogh", "Lund", "Moe", "Nygaard", "Olsen", "Prestø")  # fmt: skip
_GIVEN = ("Anna", "Bjørn", "Clara", "Dag", "Eva", "Frode", "Greta", "Hans")
_VENUES = ("Journal of Lab Studies", "Proceedings of the Lab Society", "Lab Letters")
_ARXIV_TERM = re.compile(r"\ball:(\S+)")
_SUBMITTED = re.compile(r"submittedDate:\[(\d{8})\d{4} TO (\d{8})\d{4}\]")


@dataclass(frozen=True)
class Paper:
    """A lab page as a paper."""

    page: LabPage
    pmid: str
    arxiv_id: str
    authors: tuple[str, ...]
    venue: str
    published: date
    doi: str

    @property
    def title(self) -> str:
        return self.page.doc.title

    @property
    def abstract(self) -> str:
        lines = [line for line in self.page.doc.text.splitlines() if not line.startswith("#")]
        return " ".join(" ".join(lines).split()[:60])


def paper_of(page: LabPage, number: int) -> Paper:
    digest = hashlib.sha256(page.doc.doc_id.encode("utf-8")).digest()
    published = date(2000 + digest[0] % 25, 1 + digest[1] % 12, 1 + digest[2] % 28)
    authors = tuple(
        f"{_GIVEN[digest[3 + i] % len(_GIVEN)]} {_SURNAMES[digest[5 + i] % len(_SURNAMES)]}"
        for i in range(2)
    )
    return Paper(
        page=page,
        pmid=str(30_000_000 + number),
        arxiv_id=f"{published:%y%m}.{number:05d}",
        authors=authors,
        venue=_VENUES[digest[7] % len(_VENUES)],
        published=published,
        doi=f"10.5555/lab.{page.slug}",
    )


def route(lab: Lab, path: str, query: dict[str, list[str]], headers: Any) -> Answer | None:
    """The answer to a scholarly API path, or None for a path that is none of theirs."""
    one = {name: values[0] for name, values in query.items() if values}
    if path == "/arxiv/api/query":
        return _arxiv(lab, one)
    if path == "/openalex/works":
        return _openalex(lab, one)
    if path == "/s2/graph/v1/paper/search":
        return _semantic_scholar(lab, one, headers.get("x-api-key"))
    if path in ("/pubmed/eutils/esearch.fcgi", "/pubmed/eutils/esummary.fcgi"):
        if "api_key" in one and one["api_key"] != LAB_KEY:
            return Answer(400, {"error": "API key invalid", "api-key": one["api_key"],
                                "type": "invalid", "status": "unknown"})  # fmt: skip
        return _esearch(lab, one) if path.endswith("esearch.fcgi") else _esummary(lab, one)
    return None


@dataclass(frozen=True)
class Answer:
    status: int
    body: Any  # JSON-ready, or a str (the Atom feed)
    content_type: str = "application/json"


def _found(lab: Lab, text: str, limit: int) -> list[Paper]:
    papers = lab.papers
    hits = lab.index.search(text, limit=max(limit, 1)) if text.strip() else []
    by_doc = {p.page.doc.doc_id: p for p in papers}
    return [by_doc[h.doc_id] for h in hits if h.doc_id in by_doc]


def _number(value: str | None, default: int) -> int:
    return int(value) if value is not None and value.isdigit() else default


def _arxiv(lab: Lab, q: dict[str, str]) -> Answer:
    wanted = _number(q.get("max_results"), 10)
    if wanted > MAX_ARXIV_RESULTS:
        return Answer(400, _feed([_error_entry("max_results must be at most 2000")]),
                      "application/atom+xml")  # fmt: skip
    expression = q.get("search_query", "")
    papers = _found(lab, " ".join(_ARXIV_TERM.findall(expression)), wanted)
    window = _SUBMITTED.search(expression)
    if window:
        start, end = (datetime.strptime(d, "%Y%m%d").date() for d in window.groups())
        papers = [p for p in papers if start <= p.published <= end]
    return Answer(200, _feed([_entry(p) for p in papers]), "application/atom+xml")


def _feed(entries: list[str]) -> str:
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        '<feed xmlns="http://www.w3.org/2005/Atom" '
        'xmlns:opensearch="http://a9.com/-/spec/opensearch/1.1/" '
        'xmlns:arxiv="http://arxiv.org/schemas/atom">'
        "<title>arXiv Query</title><id>http://arxiv.org/api/lab</id>"
        f"<opensearch:totalResults>{len(entries)}</opensearch:totalResults>"
        + "".join(entries)
        + "</feed>"
    )


def _error_entry(message: str) -> str:
    return (
        "<entry><id>http://arxiv.org/api/errors#max_results_too_large</id><title>Error</title>"
        f"<summary>{escape(message)}</summary></entry>"
    )


def _entry(p: Paper) -> str:
    authors = "".join(f"<author><name>{escape(a)}</name></author>" for a in p.authors)
    return (
        f"<entry><id>{escape(p.page.url)}</id><published>{p.published}T09:00:00Z</published>"
        f"<updated>{p.published}T09:00:00Z</updated><title>{escape(p.title)}</title>"
        f"<summary>{escape(p.abstract)}</summary>{authors}"
        f"<arxiv:doi>{p.doi}</arxiv:doi><arxiv:journal_ref>{escape(p.venue)}</arxiv:journal_ref>"
        f'<link href="{escape(p.page.url)}" rel="alternate" type="text/html"/>'
        f'<arxiv:primary_category term="lab.LB"/></entry>'
    )


def _openalex(lab: Lab, q: dict[str, str]) -> Answer:
    per_page = _number(q.get("per-page"), 25)
    if not 1 <= per_page <= 200:
        return Answer(400, {"error": "Invalid query parameters error.",
                            "message": "per-page must be between 1 and 200"})  # fmt: skip
    papers = _found(lab, q.get("search", ""), per_page)
    since = re.search(r"from_publication_date:(\d{4}-\d{2}-\d{2})", q.get("filter", ""))
    if since:
        papers = [p for p in papers if p.published >= date.fromisoformat(since.group(1))]
    results = [
        {
            "id": f"https://openalex.org/W{p.pmid}",
            "doi": f"https://doi.org/{p.doi}",
            "display_name": p.title,
            "publication_year": p.published.year,
            "publication_date": p.published.isoformat(),
            "authorships": [{"author": {"display_name": a}} for a in p.authors],
            "primary_location": {"landing_page_url": f"https://doi.org/{p.doi}",
                                 "source": {"display_name": p.venue}},
            "best_oa_location": {"landing_page_url": p.page.url, "pdf_url": None,
                                 "source": {"display_name": p.venue}},
            "abstract_inverted_index": _inverted(p.abstract),
        }
        for p in papers
    ]  # fmt: skip
    meta = {"count": len(results), "db_response_time_ms": 3, "page": 1, "per_page": per_page}
    return Answer(200, {"meta": meta, "results": results, "group_by": []})


def _inverted(text: str) -> dict[str, list[int]]:
    index: dict[str, list[int]] = {}
    for position, word in enumerate(text.split()):
        index.setdefault(word, []).append(position)
    return index


def _semantic_scholar(lab: Lab, q: dict[str, str], key: str | None) -> Answer:
    if key is not None and key != LAB_KEY:
        return Answer(403, {"message": "Forbidden"})
    limit = _number(q.get("limit"), 100)
    if limit > 100:
        return Answer(400, {"error": "Requested limit exceeds maximum of 100"})
    papers = _found(lab, q.get("query", ""), limit)
    since = q.get("publicationDateOrYear", "").partition(":")[0]
    if since:
        papers = [p for p in papers if p.published >= date.fromisoformat(since)]
    answer: dict[str, Any] = {"total": len(papers), "offset": 0}
    if papers:
        answer["data"] = [
            {
                "paperId": hashlib.sha1(p.doi.encode()).hexdigest(),  # noqa: S324 - an id
                "url": f"https://www.semanticscholar.org/paper/{p.pmid}",
                "title": p.title,
                "abstract": p.abstract,
                "venue": p.venue,
                "year": p.published.year,
                "publicationDate": p.published.isoformat(),
                "authors": [{"authorId": str(n), "name": a} for n, a in enumerate(p.authors)],
                "externalIds": {"DOI": p.doi, "ArXiv": p.arxiv_id},
                "openAccessPdf": {"url": p.page.url, "status": "GREEN"},
            }
            for p in papers
        ]
    return Answer(200, answer)


def _esearch(lab: Lab, q: dict[str, str]) -> Answer:
    papers = _found(lab, q.get("term", ""), _number(q.get("retmax"), 20))
    if q.get("reldate"):
        since = datetime.now(UTC).date() - timedelta(days=_number(q.get("reldate"), 0))
        papers = [p for p in papers if p.published >= since]
    count = str(len(papers))
    result: dict[str, Any] = {"count": count, "retmax": count, "retstart": "0",
                              "idlist": [p.pmid for p in papers], "translationset": [],
                              "querytranslation": q.get("term", "")}  # fmt: skip
    if not papers:
        result["warninglist"] = {"phrasesignored": [], "quotedphrasesnotfound": [],
                                 "outputmessages": ["No items found."]}  # fmt: skip
    return Answer(200, {"header": {"type": "esearch", "version": "0.3"}, "esearchresult": result})


def _esummary(lab: Lab, q: dict[str, str]) -> Answer:
    by_pmid = {p.pmid: p for p in lab.papers}
    uids = [u for u in q.get("id", "").split(",") if u in by_pmid]
    result: dict[str, Any] = {"uids": uids}
    for uid in uids:
        p = by_pmid[uid]
        result[uid] = {
            "uid": uid, "pubdate": f"{p.published:%Y %b %-d}", "source": p.venue[:20],
            "fulljournalname": p.venue, "title": p.title,
            "authors": [{"name": a, "authtype": "Author", "clusterid": ""} for a in p.authors],
            "articleids": [{"idtype": "pubmed", "idtypen": 1, "value": uid},
                           {"idtype": "doi", "idtypen": 3, "value": p.doi}],
            "sortpubdate": f"{p.published:%Y/%m/%d} 00:00",
        }  # fmt: skip
    return Answer(200, {"header": {"type": "esummary", "version": "0.3"}, "result": result})
