"""The parts of web-research that need no network: anti-patterns, key points, themes,
conflicts, confidence, the 200–400 word rule, queries, and the structured schema."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from assay.errors import IntegrityError
from assay.protocols.web_research.antipatterns import (
    markdown_problems,
    sentence_problems,
    vague_phrase,
)
from assay.protocols.web_research.collect import relevant, search_queries
from assay.protocols.web_research.keypoints import (
    ExtractiveKeyPoints,
    KeyPoint,
    record_key_points,
)
from assay.protocols.web_research.render import render_report
from assay.protocols.web_research.results import Quote, SourceFindings
from assay.protocols.web_research.structured import render_structured, validate_structured
from assay.protocols.web_research.summary import MAX_WORDS, render_summary, word_count
from assay.protocols.web_research.synthesis import (
    Synthesis,
    confidence,
    extractive_themes,
    find_conflicts,
    summary_problems,
)
from assay.store.claims import ClaimLedger, ClaimRecord, Evidence
from assay.store.runs import RunStore
from assay.store.sources import SourceRecord


def _source(n: int) -> SourceRecord:
    return SourceRecord(
        id=f"src_{n:02d}",
        url=f"http://s{n}.test/page",
        final_url=f"http://s{n}.test/page",
        title=f"Page {n}",
        snapshot=f"snapshots/s{n}.md",
        accessed_at="2026-11-29T10:00:00.000Z",
        sha256="0" * 64,
        domain=f"s{n}.test",
        content_type="text/html",
    )


def _synthesis(rows: list[tuple[str, list[int], str]], sources: int = 3) -> Synthesis:
    findings = [SourceFindings(_source(n)) for n in range(1, sources + 1)]
    claims = {}
    for number, (text, on, status) in enumerate(rows, start=1):
        claim_id = f"claim_{number:03d}"
        claims[claim_id] = ClaimRecord(
            id=claim_id,
            text=text,
            confidence="medium",
            sourceIds=[f"src_{n:02d}" for n in on],
            status=status,  # type: ignore[arg-type]
            evidence=[Evidence(sourceId=f"src_{n:02d}", quote=text, start=0, end=1) for n in on],
        )
        for n in on:
            findings[n - 1].claim_ids.append(claim_id)
    made = Synthesis(
        "Bridges", findings, claims, [], [], "low", "assay test", "2026-11-29T10:00:00Z"
    )
    made.themes = extractive_themes(made)
    made.conflicts = find_conflicts(made)
    made.confidence = confidence([c.status for c in claims.values()], sources)
    return made


@pytest.mark.parametrize(
    "sentence",
    [
        "Some say the bridge will close.",
        "It is said that the tower leans.",
        "Many believe the river is rising.",
        "Experts claim the road is unsafe.",
        "The starter is said to be 200 years old.",
        "According to reports, the mill burned down.",
        "The mayor reportedly resigned.",
    ],
)
def test_vague_attributions_are_detected(sentence: str) -> None:
    assert vague_phrase(sentence) is not None
    kinds = {p.kind for p in sentence_problems(f"{sentence} [<http://a.test/>]")}
    assert kinds == {"vague"}  # flagged even next to a URL: the page names no source


@pytest.mark.parametrize(
    "sentence",
    [
        "Researchers at the Tessby institute say the bridge is safe.",
        "The council said in 2019 that fares would rise.",
        "Critics argue the barrage changed the estuary.",
    ],
)
def test_named_sources_are_not_vague(sentence: str) -> None:
    assert vague_phrase(sentence) is None


def test_the_last_guard_finds_every_anti_pattern_in_a_markdown_output() -> None:
    text = (
        "## Bridges — Web Research Summary\n\n"
        "The bridge is 420 metres long [<http://a.test/1>] (claim_001: weak). "
        "It opened in 1931. Some say it sways [<http://a.test/1>] (claim_002: weak).\n\n"
        "### Sources\n\n- [A](http://a.test/1) (accessed: 2026-11-29)\n"
    )
    kinds = [p.kind for p in markdown_problems(text)]
    assert kinds == ["unattributed", "vague", "single_source"]
    assert (
        markdown_problems(text.replace("It opened in 1931. ", "").replace("Some say it", "It"))[
            0
        ].kind
        == "single_source"
    )


def test_a_model_summary_must_cite_known_findings_in_every_sentence() -> None:
    known = {"claim_001", "claim_002"}
    assert summary_problems("The bridge is long [claim_001].", known) == []
    errors = summary_problems("Many believe it is long. It is old [claim_009].", known)
    assert any("tied to no source" in e for e in errors)
    assert any('"Many believe" is a vague attribution' in e for e in errors)
    assert "claim_009 is not one of the FINDINGS" in errors


def test_confidence_follows_the_statuses() -> None:
    assert confidence(["verified", "verified", "weak"], 3) == "high"
    assert confidence(["verified", "verified", "contradicted"], 3) == "medium"
    assert confidence(["weak", "weak", "needs_review"], 5) == "medium"
    assert confidence(["needs_review", "needs_review", "weak"], 5) == "low"
    assert confidence(["verified", "verified"], 2) == "low"  # fewer than 3 sources
    assert confidence([], 4) == "low"


def test_queries_are_padded_and_trimmed_to_the_webSearch_rule() -> None:
    queries, warnings = search_queries("Orla river ferry", ["ferry timetable"])
    assert queries[0] == "ferry timetable" and len(queries) == 3 and not warnings
    many = [f"ferry question {n}" for n in range(12)]
    queries, warnings = search_queries("Orla river ferry", many)
    assert queries == many[:10]
    assert warnings == ["webSearch takes at most 10 queries; not searched: " + ", ".join(many[10:])]


def test_a_search_result_must_be_about_the_topic() -> None:
    assert relevant("Halvorsen Lighthouse history", [], "The Halvorsen Lighthouse stands tall.")
    assert not relevant("Halvorsen Lighthouse history", [], "Kessler sourdough history.")
    assert relevant("Halvorsen Lighthouse history", ["rye bread"], "Rye bread is baked daily.")


def test_extractive_key_points_are_verbatim_and_never_vague() -> None:
    text = (
        "The Zorbel bridge is 420 metres long. It is said that a troll lives under it. "
        "Engineers finished it in 1931. Its towers are made of granite. "
        "The deck carries four lanes of traffic. A toll was charged until 1960."
    )
    points = asyncio.run(ExtractiveKeyPoints().extract("Zorbel bridge", text))
    assert 3 <= len(points) <= 5
    assert all(text[p.quote.start : p.quote.end] == p.quote.text == p.text for p in points)
    assert not any("troll" in p.text for p in points)


def test_a_repeated_key_point_adds_its_source_to_the_existing_claim(isolated_home: Path) -> None:
    run = RunStore(isolated_home, fsync=False).create("bridges", "web-research", {})
    first, second = _source(1), _source(2)
    same = KeyPoint(
        "The bridge is 420 metres long.", Quote("The bridge is 420 metres long.", 0, 30)
    )
    other = KeyPoint("The bridge opened in 1931", Quote("The bridge opened in 1931.", 31, 57))
    one = record_key_points(run, first, [same])
    two = record_key_points(run, second, [KeyPoint(same.text.rstrip("."), same.quote), other])
    claims = ClaimLedger(run.dir).claims()
    assert [c.id for c in claims] == ["claim_001", "claim_002"]
    assert claims[0].source_ids == ["src_01", "src_02"]
    assert one.claim_ids == ["claim_001"] and two.claim_ids == ["claim_001", "claim_002"]
    assert [q.claim_id for q in two.quotes] == ["claim_001", "claim_002"]


def test_themes_are_shared_by_several_sources_and_conflicts_are_flagged() -> None:
    made = _synthesis(
        [
            ("The granite towers rise 80 metres above the river.", [1], "weak"),
            ("Both granite towers were quarried locally.", [2], "weak"),
            ("The bridge carries 40,000 cars a day.", [1], "weak"),
            ("The bridge carries 25,000 cars a day.", [3], "contradicted"),
            ("A ferry ran before the bridge opened.", [3], "weak"),
        ]
    )
    names = [t.name for t in made.themes]
    assert names[0] == "Granite towers" and names[-1] == "Other findings"
    assert [c.claim_ids for c in made.conflicts] == [("claim_003", "claim_004")]
    assert "the numbers differ: 40000 against 25000" in made.conflicts[0].detail
    report = render_report(made)
    assert "### Granite towers" in report and "### Conflicting information" in report
    value = render_structured(made)
    assert value["contradictions"][0]["sources"] == ["http://s1.test/page", "http://s3.test/page"]
    assert value["themes"][0]["summary"].endswith("[http://s2.test/page].")


def test_a_long_summary_is_trimmed_to_400_words() -> None:
    rows = [
        (
            f"Span number {n} of the long viaduct crosses the valley at a height of {n} metres.",
            [1 + n % 3],
            "weak",
        )
        for n in range(60)
    ]
    text = render_summary(_synthesis(rows))
    synthesis = text.split("\n\n### Sources")[0].split("\n", 2)[2]
    assert 200 <= word_count(synthesis) <= MAX_WORDS
    assert "outside the 200–400" not in text


def test_the_schema_rejects_a_wrong_shape() -> None:
    value = render_structured(
        _synthesis([("The bridge is 420 metres long.", [1, 2, 3], "verified")])
    )
    validate_structured(value)
    del value["confidence"]
    with pytest.raises(IntegrityError, match="'confidence' is a required property"):
        validate_structured(value)
    with pytest.raises(IntegrityError, match="at sources/0/url"):
        validate_structured(
            {**value, "confidence": "low", "sources": [{**value["sources"][0], "url": "ftp://x"}]}
        )
