"""web-research answers the question: relevance on key points, the answer first, more
searches before "minimum not met", the token window, and pages cut at the size cap."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from pathlib import Path

from assay.gather.reader import ReadSource
from assay.gather.search.base import SearchResult
from assay.lab import Lab
from assay.protocols.web_research import WebResearchRequest, web_research
from assay.protocols.web_research.basis import usable_claims, window
from assay.protocols.web_research.collect import collect
from assay.protocols.web_research.results import SourceFindings
from assay.store.claims import ClaimLedger, ClaimRecord, Evidence
from assay.store.sources import SourceRecord


def _options(lab: Lab) -> dict[str, object]:
    return {"search": "searxng", "searxng_url": lab.sites[0], "allow_hosts": ["127.0.0.0/8"]}


def _record(number: int, url: str | None = None) -> SourceRecord:
    url = url or f"http://a.test/{number}"
    return SourceRecord(
        id=f"src_{number:02d}", url=url, final_url=url, title=url,
        snapshot=f"snapshots/{number}.md", accessed_at="2026-11-30T00:00:00.000Z",
        sha256="0" * 64, domain="a.test", content_type="text/html",
    )  # fmt: skip


def test_off_topic_key_points_stay_in_the_ledger_and_out_of_the_summary(lab: Lab) -> None:
    pages = dict(lab.pages)
    lighthouse = [u for u, d in pages.items() if "Halvorsen" in d.title][:2]
    bees = [u for u, d in pages.items() if "Velmar" in d.title][:1]
    result = web_research(
        "When was the Halvorsen Lighthouse completed?", urls=[*lighthouse, *bees],
        depth="shallow", **_options(lab),
    )  # fmt: skip
    text = str(result.output)
    synthesis = text.split("### Sources")[0]
    assert synthesis.split("\n\n")[1].startswith("**Answer:**")
    assert "1874" in synthesis.split("\n\n")[1]  # the short answer first
    assert "Velmar" not in synthesis and "honey" not in synthesis
    claims = ClaimLedger(result.run_dir).claims()
    off = [c for c in claims if c.relevance is not None and c.relevance.relevant is False]
    assert off and all(c.relevance is not None and c.relevance.method == "meaning-v1" for c in off)


@dataclass
class _Outcome:
    results: list[SearchResult]
    errors: dict[str, str] = field(default_factory=dict)


class _Provider:
    name = "fake"


class SearchingSession:
    """The first search finds one page; each later search finds two new ones."""

    def __init__(self) -> None:
        self.provider = _Provider()
        self.searches: list[list[str]] = []
        self.reads: list[str] = []

    async def search(self, queries: list[str]) -> _Outcome:
        self.searches.append(queries)
        start = 0 if len(self.searches) == 1 else 1 + 2 * (len(self.searches) - 2)
        count = 1 if len(self.searches) == 1 else 2
        urls = [f"http://a.test/{n}" for n in range(start, start + count)]
        found = [
            SearchResult(url=u, title="t", snippet="", query=queries[0], provider="fake", rank=1)
            for u in urls
        ]
        return _Outcome(found)

    async def read(self, url: str) -> ReadSource | None:
        self.reads.append(url)
        return ReadSource(_record(len(self.reads), url), "topic words", 2, False, False)


def test_a_depth_not_met_searches_again_before_minimum_not_met() -> None:
    session = SearchingSession()
    request = WebResearchRequest.build("topic words", None, ["topic words"], "shallow", "summary")

    async def process(read: ReadSource) -> SourceFindings:
        return SourceFindings(read.record)

    capped = {"http://a.test/1"}  # cut at the size cap: kept, marked, not counted
    found = asyncio.run(collect(session, request, process, {}, capped=capped))  # type: ignore[arg-type]
    assert len(session.searches) == 3  # two more rounds, each with new queries
    assert session.searches[1] != session.searches[0] and len(session.searches[1]) >= 3
    assert found.usable() == 3 and [f.truncated for f in found.findings].count(True) == 1
    assert any("searched again" in w for w in found.warnings)


def test_the_token_window_bounds_what_the_synthesis_uses() -> None:
    findings = [SourceFindings(_record(n), [f"claim_{n:03d}"]) for n in range(1, 5)]
    texts = {f.record.id: "word " * 400 for f in findings}  # ~500 tokens each
    kept, notes = window(findings, texts, 1100)
    assert [f.record.id for f in kept] == ["src_03", "src_04"]  # the newest that fit
    assert len(notes) == 2 and "http://a.test/1 not used by the synthesis" in notes[0]


def _claim(number: int, sources: list[str], supported_by: list[str] = ()) -> ClaimRecord:  # type: ignore[assignment]
    return ClaimRecord(
        id=f"claim_{number:03d}", text="The Halvorsen Lighthouse was completed in 1874.",
        confidence="medium", sourceIds=sources,
        evidence=[Evidence(sourceId=s, quote="q", start=0, end=1) for s in supported_by],
    )  # fmt: skip


def test_a_page_cut_at_the_size_cap_is_never_a_source_on_its_own() -> None:
    cut = SourceFindings(_record(1), ["claim_001", "claim_002"], truncated=True)
    whole = SourceFindings(_record(2), [])
    ledger = {
        "claim_001": _claim(1, ["src_01"]),  # only the cut page states it
        "claim_002": _claim(2, ["src_01"], supported_by=["src_02"]),  # a whole page supports it
    }
    claims, notes = usable_claims("Halvorsen Lighthouse", [cut, whole], ledger)
    assert list(claims) == ["claim_002"]
    assert notes == ["claim_001 left out: only http://a.test/1, cut at the size cap, states it"]


def test_a_truncated_source_is_marked_in_the_report(tmp_path: Path) -> None:
    from assay.protocols.web_research import render, synthesis

    cut = SourceFindings(_record(1), ["claim_001"], truncated=True)
    made = synthesis.Synthesis(
        topic="t", findings=[cut], claims={}, themes=[], conflicts=[], confidence="low",
        written_by="test", generated="now",
    )  # fmt: skip
    assert "truncated at the size cap" in render.render_report(made)
