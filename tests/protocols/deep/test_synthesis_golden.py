"""Deep research's [SYNTHESIS] lines state conclusions drawn from the cited facts (issue
25), not counts such as "2 finding(s) answer this". Lab pages of real text
(tests/template_pages.py) and facts made from them."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path
from typing import Any

import pytest

from assay.config import load_settings
from assay.gather.documents import Document
from assay.lab import serve_lab
from assay.protocols.deep import conclusions, deep_research_async
from assay.protocols.deep.groups import group_facts
from assay.store.claims import ClaimRecord
from tests.template_pages import text_of

PAIRS = [
    ("Gyldendal", "Concordia Publishing House", 1770, 1869, "127.0.0.191"),
    ("Two Dollar Radio", "Little Caesars", 2005, 1959, "127.0.0.192"),
    ("Mercyful Fate", "Volbeat", 1981, 2001, "127.0.0.193"),
]


def _report(home: Path, a: str, b: str, address: str) -> str:
    docs = [Document(f"d{n}", title, text_of(title)) for n, title in enumerate((a, b))]
    with serve_lab(docs, sites=2, faults=False, first_address=address) as lab:
        settings = load_settings(
            home=home, search="searxng", searxng_url=lab.sites[0], allow_hosts=["127.0.0.0/8"]
        )
        result = asyncio.run(
            deep_research_async(f"Which was founded first, {a} or {b}?", settings=settings,
                                echo=None)
        )  # fmt: skip
    return Path(result.report).read_text()


@pytest.mark.parametrize(
    ("a", "b", "year_a", "year_b", "address"), PAIRS, ids=["publishers", "firms", "bands"]
)
def test_the_synthesis_states_what_the_dates_decide(
    isolated_home: Path, a: str, b: str, year_a: int, year_b: int, address: str
) -> None:
    text = _report(isolated_home, a, b, address)
    findings = text.split("## Findings", 1)[1].split("## Research directions", 1)[0]
    said = re.findall(r"^\*\*\[SYNTHESIS\]\*\* (.+)$", findings, re.M)
    assert said and not any("finding(s)" in s for s in said), said
    first = a if year_a < year_b else b
    verdict = said[0]  # the comparison the topic asks for, first
    assert str(year_a) in verdict and str(year_b) in verdict, verdict
    assert f"{first} came first" in verdict and f"{abs(year_a - year_b)} years" in verdict
    for side, year in ((a, year_a), (b, year_b)):  # each side's section dates that side
        section = findings.split(f"### When was {side} founded?", 1)[1].split("###")[0]
        assert f"The facts date it: {side} was" in section and str(year) in section, section


def _groups(*facts: tuple[str, str]) -> tuple[list[Any], dict[str, str]]:
    claims = [
        ClaimRecord(id=f"claim_{n:03d}", text=text, confidence="medium", sourceIds=[f"src_{n}"])
        for n, (text, _) in enumerate(facts, 1)
    ]
    titles = {c.id: title for c, (_, title) in zip(claims, facts, strict=True)}
    return group_facts(claims, titles), titles


def test_a_sub_question_the_facts_leave_open_is_said_to_be_open() -> None:
    groups, titles = _groups(("Its 24 turbines give it 320 megawatts.", "Tarn Valley tidal plant"))
    said = conclusions.section("When was Tarn Valley tidal plant opened?", groups, titles)
    assert said == "None of these facts says when Tarn Valley tidal plant was opened."


def test_two_sources_that_give_different_years_are_said_to_differ() -> None:
    groups, titles = _groups(
        ("The plant opened in 2016 after six years of construction.", "Tarn Valley tidal plant"),
        ("The Tarn Valley tidal plant opened in 2015.", "Tarn Valley notes"),
    )
    said = conclusions.section("When was Tarn Valley tidal plant opened?", groups, titles)
    assert "different years" in said and "2015" in said and "2016" in said


def test_dated_facts_that_answer_no_one_question_make_a_timeline() -> None:
    groups, titles = _groups(
        ("The light was automated in 1987.", "Halvorsen Lighthouse"),
        ("Construction of the Halvorsen Lighthouse was completed in 1874.", "Halvorsen Lighthouse"),
    )
    said = conclusions.section("How has Halvorsen Lighthouse changed over time?", groups, titles)
    assert said.startswith("In time order, the facts give: 1874, Halvorsen Lighthouse completed")
    assert said.index("1874") < said.index("1987")


def test_a_magnitude_comparison_is_decided_by_the_measured_values() -> None:
    groups, titles = _groups(
        ("Its tower is 41 metres tall and is built of local grey granite.", "Halvorsen Lighthouse"),
        ("The Brenna signal tower is 52 metres tall.", "Brenna signal tower"),
    )
    topic = "Which is taller, the Halvorsen Lighthouse or the Brenna signal tower?"
    said = conclusions.comparison(topic, groups, titles)
    assert "41 metres" in said and "52 metres" in said
    assert said.endswith("Brenna signal tower is the taller."), said


def test_a_fact_that_only_mentions_a_side_does_not_date_it() -> None:
    groups, titles = _groups(
        ("Since 2012 he has written a weekly column for the Harbour Gazette.", "Ida Brannock"),
        ("The Harbour Gazette is a weekly newspaper, published since 1931.", "Harbour Gazette"),
    )
    said = conclusions.section("When was Harbour Gazette published?", groups, titles)
    assert said == "The facts date it: Harbour Gazette was published in 1931.", said
    alone, titles = _groups(
        ("Since 2012 he has written a weekly column for the Harbour Gazette.", "Ida Brannock")
    )
    said = conclusions.section("When was Harbour Gazette published?", alone, titles)
    assert said == "None of these facts says when Harbour Gazette was published.", said
