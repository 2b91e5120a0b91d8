"""Deep research without a model, as a person would use it (issue 25): a plan of distinct
angles with queries a person would type, scores from what each direction established, and
escalation queries that rephrase the missing sub-question. Lab pages of real text
(tests/template_pages.py)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from assay.config import load_settings
from assay.gather.documents import Document
from assay.lab import serve_lab
from assay.protocols.deep import deep_research_async
from assay.protocols.deep.escalate import code_alternatives
from assay.protocols.deep.findings import FindingsStore
from assay.protocols.deep.plan import plan_directions
from assay.text import content_words
from tests.template_pages import text_of

QUESTIONS = [
    "Which was founded first, Gyldendal or Concordia Publishing House?",
    "Danish and American publishing houses",
    "Who directed the film The Prestige?",
    "How does the Tarn Valley tidal plant generate electricity?",
    "Are Vellwort and Tarnbloom both plant genera?",
]


def _plan(topic: str, tmp_path: Path) -> list[Any]:
    directions, _ = asyncio.run(plan_directions(topic, tmp_path))
    return directions


@pytest.mark.parametrize("topic", QUESTIONS)
def test_directions_are_distinct_angles_with_queries_a_person_types(
    topic: str, tmp_path: Path
) -> None:
    directions = _plan(topic, tmp_path)
    assert len(directions) >= 3
    assert len({d.description.casefold() for d in directions}) == len(directions)
    assert len({d.name for d in directions}) == len(directions)
    queries = [q.casefold() for d in directions for q in d.queries]
    assert len(queries) == len(set(queries)), queries  # no query serves two directions
    for direction in directions:
        assert 3 <= len(direction.queries) <= 5
        for query in direction.queries:
            assert '"' not in query and not query.endswith((" not true", " figures", " record"))
            # every query keeps a name of the topic whole, or the topic's own key words
            assert set(content_words(query)) & set(content_words(topic)), query


def test_a_modifier_keeps_its_noun_in_every_query(tmp_path: Path) -> None:
    """ "Danish history", "American figures" searched the words, not the topic."""
    directions = _plan("Danish and American publishing houses", tmp_path)
    for query in [q for d in directions for q in d.queries]:
        if "Danish" in query or "American" in query:
            assert "publishing houses" in query, query
    kinds = [d.name for d in directions]
    assert kinds[1:] == ["Over time", "How it works"]  # time and mechanism, not word splits


def test_each_side_of_a_comparison_is_its_own_look_up(tmp_path: Path) -> None:
    directions = _plan(QUESTIONS[0], tmp_path)
    assert [d.question for d in directions[:2]] == [
        "When was Gyldendal founded?",
        "When was Concordia Publishing House founded?",
    ]
    assert directions[0].queries[0] == "Gyldendal founded"
    assert not any("Concordia" in q for q in directions[0].queries)  # no overlap of sides


@pytest.mark.parametrize(
    ("question", "names", "asked"),
    [
        ("When was Gyldendal founded?", "Gyldendal", {"founded", "established"}),
        ("When was Concordia Publishing House founded?", "Concordia Publishing House",
         {"founded", "established"}),
        ("What is the height of Halvorsen Lighthouse?", "Halvorsen Lighthouse",
         {"height", "tall"}),
    ],
)  # fmt: skip
def test_escalation_queries_rephrase_the_missing_sub_question(
    question: str, names: str, asked: set[str]
) -> None:
    queries = code_alternatives(question, "The question as asked", [question])
    assert len({q.casefold() for q in queries}) == 3
    for query in queries:
        assert query.startswith(names), query
        assert "not true" not in query and "question as asked" not in query.lower()
    assert all(set(q.split()) & asked for q in queries), queries


def test_an_off_topic_direction_scores_low_and_escalates(isolated_home: Path) -> None:
    """The lab has Gyldendal's page and no page on Concordia Publishing House: the
    Concordia direction reads Gyldendal's page (it says "publishing house" and "founded"),
    and those facts, relevant to the topic, establish nothing for it."""
    docs = [Document("d0", "Gyldendal", text_of("Gyldendal"))]
    with serve_lab(docs, sites=2, faults=False, first_address="127.0.0.171") as lab:
        settings = load_settings(
            home=isolated_home, search="searxng", searxng_url=lab.sites[0],
            allow_hosts=["127.0.0.0/8"],
        )  # fmt: skip
        result = asyncio.run(
            deep_research_async(QUESTIONS[0], settings=settings, max_directions=3, echo=None)
        )
    by_number = {d["number"]: d for d in result.directions}
    on_topic, off_topic = by_number[1], by_number[2]
    assert off_topic["parts"]["sources"] == 0.0 and off_topic["parts"]["confidence"] == 0.0
    assert off_topic["score"] < on_topic["score"] and off_topic["escalated"]
    retry = off_topic["retry_queries"]
    assert all(q.startswith("Concordia Publishing House") for q in retry), retry
    assert any("established" in q or "founded" in q for q in retry), retry
    facts = [f for fs in FindingsStore(Path(result.run_dir)).findings() if fs.number == 2
             for f in fs.facts]  # fmt: skip
    assert facts and all(not f.established for f in facts)  # read, recorded, not counted
    log = [
        json.loads(line)
        for line in (Path(result.run_dir) / "run.log.jsonl").read_text().splitlines()
    ]
    escalations = [e["data"] for e in log if e["type"] == "deep.escalation"]
    assert any(e["direction"] == 2 and e["queries"] == retry for e in escalations)
