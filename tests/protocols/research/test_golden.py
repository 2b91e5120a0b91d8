"""The research agent's report as a person would use it (issue 25), over lab pages of real
text (tests/template_pages.py): searches formed from the question's sub-questions, and
headings a reader understands."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path
from typing import Any

import pytest

from assay.config import load_settings
from assay.gather.documents import Document
from assay.lab import serve_lab
from assay.protocols.research import research_async
from assay.protocols.research.hops import bridge_hop
from assay.store.claims import ClaimRecord
from assay.store.jsonl import read_jsonl
from tests.template_pages import text_of

PAIRS = [
    ("Gyldendal", "Concordia Publishing House", "127.0.0.131"),
    ("Two Dollar Radio", "Little Caesars", "127.0.0.132"),
    ("Mercyful Fate", "Volbeat", "127.0.0.133"),
]
_FIXED_SUFFIXES = (" criticism", " limitations", " history", " statistics", " debate")


def _run(home: Path, a: str, b: str, address: str) -> Any:
    docs = [Document(f"d{n}", title, text_of(title)) for n, title in enumerate((a, b))]
    with serve_lab(docs, sites=2, faults=False, first_address=address) as lab:
        settings = load_settings(
            home=home, search="searxng", searxng_url=lab.sites[0], allow_hosts=["127.0.0.0/8"]
        )
        return asyncio.run(
            research_async(f"Which was founded first, {a} or {b}?", settings=settings)
        )


@pytest.mark.parametrize(("a", "b", "address"), PAIRS, ids=["publishers", "firms", "bands"])
def test_searches_are_the_sub_questions_and_headings_read_as_questions(
    isolated_home: Path, a: str, b: str, address: str
) -> None:
    result = _run(isolated_home, a, b, address)
    log = read_jsonl(Path(result.run_dir) / "run.log.jsonl").records
    queries = [q for e in log if e["type"] == "tool.search" for q in e["data"]["queries"]]
    assert queries and not any('"' in q for q in queries), queries  # no quoted fragments
    assert not any(q.endswith(_FIXED_SUFFIXES) for q in queries), queries
    for side in (a, b):  # each side's own look-up is searched
        assert any(q.startswith(side) and q.endswith(" founded") for q in queries), queries
    plan = (Path(result.run_dir) / "plan.md").read_text()
    assert f"When was {a} founded?" in plan and f"When was {b} founded?" in plan
    report = Path(result.report or "").read_text()
    headings = re.findall(r"^### (.+)$", report, re.M)
    assert headings, report
    for heading in headings:
        assert not heading.startswith("Follow-up search"), heading
        assert heading.endswith("?") or heading.startswith(("About ", "Looked up next")), heading
        if heading != f"Which was founded first, {a} or {b}?":  # the question, as typed
            assert heading not in queries  # a heading is not a search string


def _claim(number: int, text: str) -> ClaimRecord:
    return ClaimRecord(id=f"claim_{number:03d}", text=text, confidence="medium",
                       sourceIds=[f"src_{number:02d}"])  # fmt: skip


def test_a_word_that_only_opens_sentences_is_no_bridge_and_a_bridge_is_headed_about_it() -> None:
    question = "What does the report of the Tarn Valley audit back every claim with?"
    opened = [_claim(1, "Every claim in the Tarn Valley audit report is backed by a source.")]
    hop = bridge_hop(question, opened, set())
    assert hop is None or all("Every" not in t for t in hop.targets), hop
    named = [
        _claim(1, "The Tarn Valley audit backs every claim with a ledger kept by Ingrid Moe."),
        _claim(2, "The ledger of the audit was designed by Ingrid Moe in 1987."),
    ]  # fmt: skip
    hop = bridge_hop(question, named, set())
    assert hop is not None and "Ingrid Moe" in hop.missing
    assert set(hop.headings().values()) == {"About Ingrid Moe, which a source ties to the question"}
