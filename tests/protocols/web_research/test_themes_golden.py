"""web-research themes and summary as a person would use them (issue 25): themes named by
phrases several sources share (noun phrases, names, entity/slot groups), never a lone word
("Germany", "Single", "Built"); a summary that never says its Answer sentence twice, not
in a quote and not in a conflict."""

from __future__ import annotations

import json

from assay.answers import Answer
from assay.lab import Lab
from assay.protocols.web_research import web_research
from assay.protocols.web_research.results import Quote, SourceFindings
from assay.protocols.web_research.summary import render_summary
from assay.protocols.web_research.synthesis import OTHER, Synthesis, find_conflicts
from assay.protocols.web_research.themes import extractive_themes, phrases
from assay.store.claims import ClaimRecord, Evidence
from assay.store.sources import SourceRecord
from tests.protocols.web_research.test_goldens import TOPIC, ferry_lab, lab_options

__all__ = ["ferry_lab"]  # the goldens' session fixture, shared


def test_ferry_themes_are_phrases_two_sources_share(ferry_lab: Lab) -> None:
    result = web_research(TOPIC, [], [TOPIC], "medium", "structured", **lab_options(ferry_lab))
    value = result.output if isinstance(result.output, dict) else json.loads(result.output)
    themes = [t for t in value["themes"] if t["name"] != OTHER]
    assert themes, value["themes"]
    for theme in themes:
        name = theme["name"]
        assert len(name.split()) >= 2 or ":" in name, name  # never a lone word
        assert len(set(theme["supporting_sources"])) >= 2, theme
        subject = name.split(":")[0].lower()
        assert subject.split()[-1][:4] in theme["summary"].lower(), theme  # its findings say it


def _claims(*rows: tuple[str, str]) -> dict[str, ClaimRecord]:
    return {
        f"claim_{n:03d}": ClaimRecord(
            id=f"claim_{n:03d}", text=text, confidence="medium", sourceIds=[source]
        )
        for n, (text, source) in enumerate(rows, start=1)
    }


def test_a_theme_is_never_a_lone_word_a_verb_phrase_or_a_cut_name() -> None:
    claims = _claims(
        ("The Heinkel HD 38 was a fighter aircraft developed in Germany in the late 1920s.", "a"),
        ("The Heinkel HD 39 was a cargo aircraft developed in Germany in the 1920s.", "b"),
        ("The bridge carries 40,000 cars a day across the Swedish Air Force base.", "a"),
        ("The bridge carries 25,000 cars a day near the Swedish Air Force depot.", "b"),
    )
    sources = {c: {claim.source_ids[0]} for c, claim in claims.items()}
    found = extractive_themes("Aircraft", claims, sources, {})
    names = [name for name, _ in found]
    assert "Swedish Air Force" in names, names
    for name in names:
        assert name == OTHER or len(name.split()) >= 2, name
        assert name.lower() not in {"germany", "heinkel hd", "aircraft developed", "bridge carries"}
    keys = [key for key, _ in phrases("The Heinkel HD 38 is 41 metres long.")]
    assert "heinkel hd 38" in keys and "metr long" not in keys and "heinkel hd" not in keys


def _record(n: int) -> SourceRecord:
    url = f"http://127.0.0.{n}/page"
    return SourceRecord(
        id=f"src_{n:02d}", url=url, final_url=url, title=f"Ferry page {n}",
        snapshot=f"snapshots/{n}.md", accessed_at="2026-12-01T00:00:00.000Z",
        sha256="0" * 64, domain=f"127.0.0.{n}", content_type="text/html",
    )  # fmt: skip


def test_the_summary_says_its_answer_sentence_once_not_again_in_a_quote_or_conflict() -> None:
    said = "The Orla river ferry first carried passengers across the river in 1893."
    other = "The Orla river ferry first carried passengers across the river in 1895."
    passage = f"{said} It was a cable ferry then."
    one, two = _record(1), _record(2)
    claims = {
        "claim_001": ClaimRecord(
            id="claim_001", text=said, confidence="medium", sourceIds=[one.id], status="weak",
            evidence=[Evidence(sourceId=one.id, quote=said, start=0, end=len(said))],
        ),
        "claim_002": ClaimRecord(
            id="claim_002", text=other, confidence="medium", sourceIds=[two.id], status="weak",
            evidence=[Evidence(sourceId=two.id, quote=other, start=0, end=len(other))],
        ),
    }  # fmt: skip
    findings = [
        SourceFindings(one, ["claim_001"], [Quote(passage, 0, len(passage), "claim_001")]),
        SourceFindings(two, ["claim_002"]),
    ]
    made = Synthesis("Orla ferry", findings, claims, [], [], "low", "test", "now")
    made.conflicts = find_conflicts(made)
    assert made.conflicts  # 1893 against 1895: the answer is in a conflict
    made.answer = Answer(said.rstrip("."), ("claim_001",), "extractive:how")
    text = render_summary(made)
    body = text.split("\n", 3)[3]  # after the heading and the answer line
    assert said.rstrip(".") not in body, body
    assert "the answer above" in body and "1895" in body
