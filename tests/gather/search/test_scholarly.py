"""The scholarly providers (arXiv, OpenAlex, Semantic Scholar, PubMed) against the lab's
imitations of their APIs, and against recorded answers for the errors the lab does not
make; what they find reaches sources.jsonl and the report's source list."""

from __future__ import annotations

import asyncio
import json
import tomllib
from collections.abc import Callable
from importlib.metadata import EntryPoint
from pathlib import Path
from typing import Any

import httpx2
import pytest

from assay import plugins
from assay.config import Settings, load_settings
from assay.errors import ProviderError
from assay.gather.search import arxiv, openalex, pubmed, scholarly, semanticscholar
from assay.gather.search.base import SearchResult
from assay.gather.search.scholarly import ScholarlyAPI
from assay.keys import KeyStore
from assay.lab import Lab
from assay.lab.scholarly import LAB_KEY
from tests.paths import ROOT

TOPIC = "How tall is the Halvorsen Lighthouse?"
PROVIDERS = {"arxiv": arxiv, "openalex": openalex, "semanticscholar": semanticscholar,
             "pubmed": pubmed}  # fmt: skip
PYPROJECT = ROOT / "pyproject.toml"


@pytest.fixture(autouse=True)
def declared_plugins(monkeypatch: pytest.MonkeyPatch) -> None:
    """The search plugins pyproject.toml declares, whether or not the installed metadata
    is from before they were (an editable install keeps its entry points until reinstalled)."""
    declared = tomllib.loads(PYPROJECT.read_text())["project"]["entry-points"]
    installed = plugins.entry_points

    def both(*, group: str) -> list[EntryPoint]:
        found = {ep.name: ep for ep in installed(group=group)}
        for name, value in declared.get(group, {}).items():
            found.setdefault(name, EntryPoint(name=name, value=value, group=group))
        return list(found.values())

    monkeypatch.setattr(plugins, "entry_points", both)


def lab_settings(lab: Lab, home: Path, search: str = "arxiv", **more: Any) -> Settings:
    return load_settings(
        home=home, search=search, scholarly=lab.scholarly_settings() | more,
        allow_hosts=["127.0.0.0/8"],
    )  # fmt: skip


def search(
    settings: Settings, home: Path, query: str, *, transport: Any = None, max_results: int = 3
) -> list[SearchResult]:
    from assay.gather.search.registry import build_search_provider, search_client

    async def run() -> list[SearchResult]:
        async with search_client(settings, transport=transport) as http:
            provider = build_search_provider(settings, http=http, keys=KeyStore(home))
            return await provider.search([query], max_results=max_results)

    return asyncio.run(run())


@pytest.mark.parametrize("name", sorted(PROVIDERS))
def test_each_provider_finds_the_papers_with_their_bibliography(
    name: str, lab: Lab, isolated_home: Path
) -> None:
    lab.reset()
    found = search(lab_settings(lab, isolated_home, name), isolated_home, TOPIC)
    assert [r.rank for r in found] == [1, 2, 3]
    assert all(r.provider == name and "Halvorsen" in r.title for r in found)
    papers = {p.title: p for p in lab.papers}
    for result in found:
        paper = papers[result.title]
        assert result.authors == paper.authors and result.venue == paper.venue
        assert result.year == paper.published.year and result.doi == paper.doi
        assert result.published_date and result.published_date[:10] == str(paper.published)
        # the link a run reads is the paper's page (PubMed's own record page for pubmed)
        assert result.url == (f"{lab.sites[0]}/pubmed/pages/{paper.pmid}/"
                              if name == "pubmed" else paper.page.url)  # fmt: skip
    assert lab.hits(f"/{ {'semanticscholar': 's2'}.get(name, name) }/"), "the imitation was asked"


def test_each_provider_asks_in_its_api_documented_parameters(lab: Lab, isolated_home: Path) -> None:
    lab.reset()
    for name in PROVIDERS:
        search(lab_settings(lab, isolated_home, name, contact_email="me@example.org"),
               isolated_home, TOPIC)  # fmt: skip
    asked = [target for _, target, _ in lab.hits()]
    [arxiv_asked] = [t for t in asked if t.startswith("/arxiv/api/query?")]
    assert "search_query=all%3Ahow+OR" not in arxiv_asked  # function words are no terms
    assert "search_query=all%3Atall+OR+all%3Ahalvorsen+OR+all%3Alighthouse" in arxiv_asked
    assert "sortBy=relevance" in arxiv_asked and "max_results=3" in arxiv_asked
    [works] = [t for t in asked if t.startswith("/openalex/works?")]
    assert "per-page=3" in works and "mailto=me%40example.org" in works
    [papers] = [t for t in asked if t.startswith("/s2/graph/v1/paper/search?")]
    assert "limit=3" in papers and "fields=title%2Curl%2Cabstract" in papers
    esearch = [t for t in asked if "esearch.fcgi" in t]
    assert esearch and "db=pubmed" in esearch[0] and "email=me%40example.org" in esearch[0]
    assert any("esummary.fcgi" in t for t in asked)


@pytest.mark.parametrize("name", sorted(PROVIDERS))
def test_a_query_nothing_matches_is_an_empty_list(name: str, lab: Lab, isolated_home: Path) -> None:
    assert search(lab_settings(lab, isolated_home, name), isolated_home, "zzxqv") == []


def test_a_time_range_narrows_to_the_window(lab: Lab, isolated_home: Path) -> None:
    for name in PROVIDERS:
        settings = lab_settings(lab, isolated_home, name)

        async def run(settings: Settings = settings) -> list[SearchResult]:
            from assay.gather.search.registry import build_search_provider, search_client

            async with search_client(settings) as http:
                provider = build_search_provider(settings, http=http, keys=KeyStore(isolated_home))
                return await provider.search([TOPIC], max_results=10, time_range="day")

        assert asyncio.run(run()) == [], name  # no lab paper is from the last day


def test_a_key_is_sent_and_a_rejected_one_names_its_variable_never_its_value(
    lab: Lab, isolated_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name, variable in (("semanticscholar", "SEMANTIC_SCHOLAR_API_KEY"),
                           ("pubmed", "NCBI_API_KEY")):  # fmt: skip
        monkeypatch.setenv(variable, LAB_KEY)
        assert search(lab_settings(lab, isolated_home, name), isolated_home, TOPIC)
        monkeypatch.setenv(variable, "wrong-key-0123456789")
        with pytest.raises(ProviderError) as refused:
            search(lab_settings(lab, isolated_home, name), isolated_home, TOPIC)
        status = 403 if name == "semanticscholar" else 400
        assert f"the API key was rejected (HTTP {status})" in str(refused.value)
        assert variable in str(refused.value) and "wrong-key" not in str(refused.value)


def recorded(status: int, body: bytes | str | dict[str, Any], **headers: str) -> Any:
    """A transport answering every request with one recorded answer (and keeping them)."""
    seen: list[httpx2.Request] = []

    def answer(request: httpx2.Request) -> httpx2.Response:
        seen.append(request)
        if isinstance(body, dict):
            return httpx2.Response(status, json=body, headers=headers)
        return httpx2.Response(status, content=body, headers=headers)

    transport = httpx2.MockTransport(answer)
    transport.seen = seen  # type: ignore[attr-defined]
    return transport


ARXIV_ERROR = b"""<?xml version="1.0" encoding="UTF-8"?>
<feed xmlns="http://www.w3.org/2005/Atom">
<title>ArXiv Query: search_query=&amp;id_list=1234.12345</title><id>http://arxiv.org/api/kvuntZ8c9a4Eq5CF7KY03nMug+Q</id><updated>2007-10-12T00:00:00-04:00</updated>
<entry><id>http://arxiv.org/api/errors#incorrect_id_format_for_1234.12345</id>
<title>Error</title><summary>incorrect id format for 1234.12345</summary>
<updated>2007-10-12T00:00:00-04:00</updated>
<link href="http://arxiv.org/api/errors#incorrect_id_format_for_1234.12345" rel="alternate"
 type="text/html"/>
<author><name>arXiv api core</name></author></entry></feed>"""


@pytest.mark.parametrize(
    ("name", "transport", "said"),
    [
        ("arxiv", lambda: recorded(400, ARXIV_ERROR),
         "the API refused the query: incorrect id format for 1234.12345"),
        ("arxiv", lambda: recorded(200, b"<html><body>maintenance</body></html>"),
         "not an Atom feed"),
        ("arxiv", lambda: recorded(200, b'<!DOCTYPE lolz [<!ENTITY lol "lol">]><feed/>'),
         "a document type declaration"),
        ("semanticscholar", lambda: recorded(429, {"message": "Too Many Requests. Please wait "
         "and try again or apply for a key for higher rate limits."}, **{"Retry-After": "5"}),
         "rate limited (HTTP 429); retry after 5 s"),
        ("semanticscholar", lambda: recorded(400, {"error": "Unrecognized or unsupported fields: "
         "[bogus]"}), "HTTP 400 for 'tides': Unrecognized or unsupported fields: [bogus]"),
        ("openalex", lambda: recorded(403, {"error": "Invalid query parameters error.",
         "message": "filter is not a valid field"}), "HTTP 403 for 'tides': filter is not a valid"),
        ("openalex", lambda: recorded(200, b"{not json"), "the answer is not valid JSON"),
        ("pubmed", lambda: recorded(200, {"esearchresult": {"ERROR": "Invalid query"}}),
         "pubmed: Invalid query"),
        ("pubmed", lambda: recorded(200, {"header": {}}), "no esearchresult"),
    ],
)  # fmt: skip
def test_an_error_answer_is_one_provider_error_in_the_apis_own_words(
    name: str, transport: Callable[[], Any], said: str, isolated_home: Path
) -> None:
    settings = load_settings(home=isolated_home, search=name)
    with pytest.raises(ProviderError, match=rf"^{name}: ") as failed:
        search(settings, isolated_home, "tides", transport=transport())
    assert said in str(failed.value)


def test_an_answer_past_the_size_cap_is_refused(
    isolated_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(scholarly, "MAX_ANSWER_BYTES", 1000)
    settings = load_settings(home=isolated_home, search="openalex")
    huge = recorded(200, {"results": [{"display_name": "x" * 2000}]})
    with pytest.raises(ProviderError, match="larger than 1000 bytes"):
        search(settings, isolated_home, "tides", transport=huge)


def test_requests_carry_assays_user_agent_and_go_to_the_documented_endpoints(
    isolated_home: Path,
) -> None:
    from assay.gather.fetch import default_user_agent

    expected = {
        "arxiv": "https://export.arxiv.org/api/query",
        "openalex": "https://api.openalex.org/works",
        "semanticscholar": "https://api.semanticscholar.org/graph/v1/paper/search",
        "pubmed": "https://eutils.ncbi.nlm.nih.gov/entrez/eutils/esearch.fcgi",
    }
    empty = {"arxiv": b'<feed xmlns="http://www.w3.org/2005/Atom"/>', "openalex":
             {"results": []}, "semanticscholar": {"total": 0, "offset": 0},
             "pubmed": {"esearchresult": {"count": "0", "idlist": []}}}  # fmt: skip
    for name, endpoint in expected.items():
        transport = recorded(200, empty[name])
        assert search(load_settings(home=isolated_home, search=name), isolated_home, "tides",
                      transport=transport) == []  # fmt: skip
        [request] = transport.seen
        assert str(request.url).split("?")[0] == endpoint
        assert request.headers["user-agent"] == default_user_agent()


@pytest.mark.paced
def test_requests_to_one_api_host_keep_its_interval(lab: Lab, isolated_home: Path) -> None:
    assert arxiv.ArxivSearch.interval == 3.0  # arXiv's terms of use
    assert min(p.interval for p in (openalex.OpenAlexSearch, pubmed.PubMedSearch,
                                    semanticscholar.SemanticScholarSearch)) >= 1.0  # fmt: skip
    lab.reset()
    settings = lab_settings(lab, isolated_home, "pubmed")
    search(settings, isolated_home, TOPIC)  # esearch, then esummary: one host, paced
    times = [t for _, _, t in lab.hits("/pubmed/eutils/")]
    assert len(times) == 2 and times[1] - times[0] >= 1.0


def test_a_provider_never_shows_its_key(isolated_home: Path) -> None:
    provider = semanticscholar.SemanticScholarSearch(
        http=httpx2.AsyncClient(), endpoint="https://api.semanticscholar.org/graph/v1",
        key="s2-secret-value-123",
    )  # fmt: skip
    assert isinstance(provider, ScholarlyAPI) and "s2-secret-value-123" not in repr(provider)


def test_a_research_run_keeps_the_bibliography_in_sources_and_the_report(
    lab: Lab, isolated_home: Path
) -> None:
    from assay.protocols.research import research_async

    result = asyncio.run(research_async(TOPIC, settings=lab_settings(lab, isolated_home)))
    run_dir = Path(result.run_dir)
    records = [json.loads(line) for line in (run_dir / "sources.jsonl").read_text().splitlines()]
    papers = {p.page.url: p for p in lab.papers}
    assert records
    for record in records:
        paper = papers[record["url"]]
        assert record["authors"] == list(paper.authors) and record["doi"] == paper.doi
        assert (record["venue"], record["year"]) == (paper.venue, paper.published.year)
    report = (run_dir / "report.md").read_text()
    first = papers[records[0]["url"]]
    shown = f"{', '.join(first.authors)} ({first.published.year}). {first.venue}. doi:{first.doi}"
    assert f"— {shown} — <{first.page.url}>" in report


def test_a_run_whose_scholarly_search_finds_nothing_ends_with_the_reason(
    lab: Lab, isolated_home: Path
) -> None:
    from typer.testing import CliRunner

    from assay.cli import app

    urls = lab.scholarly_settings()
    env = {f"ASSAY_SCHOLARLY__{k.upper()}": v for k, v in urls.items()}
    result = CliRunner().invoke(
        app, ["research", "zzxqv qqvzx", "--search", "pubmed", "--allow-host", "127.0.0.0/8",
              "--quiet", "--budget-time", "60"], env=env,
    )  # fmt: skip
    assert result.exit_code == 1, result.output
    assert "every search came back empty" in result.output


def test_a_served_request_cannot_move_a_scholarly_endpoint(isolated_home: Path) -> None:
    from assay.protocols.launch import StartRun

    with pytest.raises(ValueError, match="scholarly"):
        StartRun.model_validate(
            {"topic": TOPIC, "search": "semanticscholar",
             "scholarly": {"semantic_scholar_url": "http://attacker.test/graph/v1"}}
        )  # fmt: skip
