"""search-synth golden runs with two really different search tools (a SearXNG site of the
lab and the local index), extractive and scripted model: who asserted what, the verdict
the ledger supports, and a Best and Verified response that holds the fact two searchers
found on independent pages (issue 25)."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from assay.gather.documents import Document
from assay.gather.index import LocalIndex
from assay.gather.search.base import SearchResult
from assay.gather.search.web_search import QueryOutcome, WebSearchOutcome
from assay.lab import Lab, serve_lab
from assay.models.base import Request
from assay.models.testing import ScriptedModel
from assay.protocols.synth import parse_roster, synth_async
from assay.protocols.synth.agents import Gathered, Narrative, reading_order
from assay.protocols.synth.narrative import Written
from assay.protocols.synth.output import CheckRow, Synthesis
from assay.protocols.synth.verdicts import final_statements
from assay.store.claims import ClaimLedger, ClaimRecord, Evidence
from tests.synth_support import DOCS, TOPIC, searcher, settings_for

WEB_ONLY = ("tarn-official", "tarn-rumour", "tarn-grid")


@pytest.fixture(scope="module")
def tarn() -> Iterator[Lab]:
    with serve_lab(DOCS, sites=3, faults=False, first_address="127.0.0.64") as running:
        yield running


@pytest.fixture(scope="module")
def web_half() -> Iterator[Lab]:
    web = [d for d in DOCS if d.doc_id in WEB_ONLY]
    with serve_lab(web, sites=3, faults=False, first_address="127.0.0.67") as running:
        yield running


def _panel(home: Path, lab: Lab, indexed: list[Document], **kwargs: Any) -> tuple[Any, str]:
    with LocalIndex(home / "index.sqlite") as index:
        index.add_documents(indexed)
    panel = parse_roster(
        [
            {"name": "CC", "role": "MANAGER"},
            searcher("Alpha", lab.sites[0]),
            {"name": "Beta", "role": "SEARCHER", "can_search": True, "search_tool": "local"},
        ]
    )
    out = home / "out" / "synth.md"
    result = asyncio.run(
        synth_async(TOPIC, roster=panel, output=out, settings=settings_for(home), **kwargs)
    )
    assert result.signal == "[DONE]", result.reason
    return result, Path(result.output).read_text()


def _best(text: str) -> str:
    return text.split("## Phase 3: Best and Verified Response", 1)[1].split("### Unverified", 1)[0]


def test_the_fact_two_searchers_found_on_independent_pages_is_best_and_verified(
    tarn: Lab, isolated_home: Path
) -> None:
    """Both tools index the same pages; "opened in 2016" is stated by two independent ones
    (the official history and the anniversary article). Each searcher read both, so a
    check that refused every page the author read could verify nothing."""
    result, text = _panel(isolated_home, tarn, DOCS)
    best = _best(text)
    assert "opened in 2016 after six years of construction" in best, best
    assert "900,000" not in best and "200,000 homes" in best  # one rumour page against three
    assert "other page(s) say otherwise" in text  # the weighed dissent is shown
    alpha = text.split("#### Alpha Search Terms & Raw Results", 1)[1].split("###", 1)[0]
    beta = text.split("#### Beta Search Terms & Raw Results", 1)[1].split("###", 1)[0]
    assert "index://" not in alpha and "http://" not in beta  # each its own tool
    # A check never rests on the page the assertion cites (nor a copy of it).
    claims = {c.id: c for c in ClaimLedger(Path(result.run_dir)).claims()}
    checks = [c for c in claims.values() if " fact-check of " in c.created_by]
    assert checks
    for row in re.findall(r"^\| (.+?) \(claim_\d+: \w+\) \| VERIFIED \| (\S+) ", text, re.M):
        sentence, url = row
        asserted = [c for c in claims.values() if c.text == sentence and c.created_by in
                    ("Alpha", "Beta")]  # fmt: skip
        cited = {e.source_id for c in asserted for e in c.evidence}
        assert all(url.rsplit("/", 1)[-1] not in s for s in cited)


def test_a_claim_is_credited_only_to_the_searchers_that_asserted_it(
    web_half: Lab, isolated_home: Path
) -> None:
    """Alpha searches the lab's pages, Beta indexes the other half: a sentence both wrote
    lists both, each with its own page; a sentence is never credited to Alpha through a
    page only Beta read (was: "Reported by index://tarn-silt (asserted by Alpha)")."""
    indexed = [d for d in DOCS if d.doc_id not in WEB_ONLY]
    _, text = _panel(isolated_home, web_half, indexed)
    unverified = text.split("### Unverified Claims", 1)[1].split("---", 1)[0]
    lines = [line for line in unverified.splitlines() if line.startswith("- ") and "--" in line]
    assert lines
    for line in lines:
        who = re.search(r"\(asserted by ([^)]+)\)|Asserted by ([^;]+);", line)
        assert who is not None, line
        names = set((who.group(1) or who.group(2)).split(", "))
        urls = re.findall(r"(index://\S+|http://\S+)", line.split(" -- ", 1)[1])
        for url in urls:
            owner = "Beta" if url.startswith("index://") else "Alpha"
            assert owner in names, line
        sentence = line[2:].split(" (claim_", 1)[0]
        wrote = {a for a in ("Alpha", "Beta") if sentence in text.split(f"### {a} Response")[1]
                 .split("####", 1)[0]}  # fmt: skip
        assert names == wrote, line


def _sentence(text: str, claim_id: str) -> Written:
    return Written(text, [1], claim_id=claim_id)


def test_a_claim_the_ledger_holds_as_contradicted_is_never_shown_as_plausible() -> None:
    refuted = ClaimRecord(
        id="claim_001", text="The plant has 40 turbines.", confidence="medium",
        sourceIds=["src_001", "src_002"], status="contradicted", created_by="Alpha",
        evidence=[
            Evidence(sourceId="src_001", quote="The plant has 40 turbines.", start=0, end=26),
            Evidence(sourceId="src_002", quote="Its 24 turbines", start=0, end=15,
                     stance="refutes"),
        ],
    )  # fmt: skip
    plain = ClaimRecord(
        id="claim_002", text="A survey measured the change.", confidence="medium",
        sourceIds=["src_001"], status="weak", created_by="Alpha",
        evidence=[Evidence(sourceId="src_001", quote="A survey measured the change.", start=0,
                           end=29)],
    )  # fmt: skip
    synth = Synthesis(TOPIC, "today", ["Alpha", "Beta"], "CC")
    paragraph = [_sentence(refuted.text, refuted.id), _sentence(plain.text, plain.id)]
    synth.narratives = [Narrative("Alpha", Gathered([], [], []), [paragraph])]
    synth.checks[("Beta", "Alpha")] = [
        CheckRow(c.id, c.text, "UNVERIFIABLE", f"check_{c.id}") for c in (refuted, plain)
    ]
    verified, unverified = final_statements(synth, {c.id: c for c in (refuted, plain)})
    assert verified == []
    assert [line.text for line in unverified] == [plain.text]  # the refuted one is out


def conversation(tag: str) -> Any:
    """A scripted searcher: its own queries, then prose from the first two statements."""

    async def script(request: Request) -> object:
        latest = request.messages[-1].content
        if "EVIDENCE:" in latest:
            return {"label": "NOT_ENOUGH_INFO", "sentence": 0}
        if latest.startswith("TOPIC:"):
            return {"queries": [f"Tarn Valley tidal plant {tag}", f"Tarn estuary {tag}"]}
        if latest.startswith("CLAIMS:"):
            return {"answer": "2016", "claim": 1}
        numbers = [int(n) for n in re.findall(r"^\[(\d+)\] ", latest, re.M)][:2]
        return {"sentences": [{"text": "The Tarn Valley tidal plant opened in 2016.",
                               "statements": numbers[:1]}]}  # fmt: skip

    return script


def test_each_model_searcher_writes_in_its_own_conversation(tarn: Lab, isolated_home: Path) -> None:
    alpha, beta = ScriptedModel(conversation("opening")), ScriptedModel(conversation("history"))
    _panel(isolated_home, tarn, DOCS, models={"Alpha": alpha, "Beta": beta})
    writes = {}
    for name, model in (("Alpha", alpha), ("Beta", beta)):
        request = next(r for r in model.requests if "STATEMENTS:" in r.messages[-1].content)
        turns = [m.content for m in request.messages]
        assert turns[0].startswith("TOPIC:") and "queries" in turns[1]  # its own plan before
        writes[name] = turns
    assert "opening" in writes["Alpha"][1] and "history" in writes["Beta"][1]
    assert writes["Alpha"] != writes["Beta"]


def test_a_searcher_reads_in_the_order_of_its_own_queries() -> None:
    def result(query: str, url: str, rank: int) -> SearchResult:
        return SearchResult(url=url, title="", snippet="", query=query, provider="x", rank=rank)

    outcome = WebSearchOutcome(
        (
            QueryOutcome(
                "q1", (result("q1", "a1", 1), result("q1", "a2", 2), result("q1", "a3", 3))
            ),
            QueryOutcome("q2", (result("q2", "b1", 1), result("q2", "a1", 2))),
            QueryOutcome("q3", (result("q3", "c1", 1),)),
        )
    )
    assert reading_order(outcome) == ["a1", "b1", "c1", "a2", "a3"]  # was a1, a2, a3 first
