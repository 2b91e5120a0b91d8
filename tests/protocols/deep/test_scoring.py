"""Phase 2/3 arithmetic and planning rules of ``assay deep``, as pure functions."""

from __future__ import annotations

import asyncio
from dataclasses import replace
from pathlib import Path

from assay.protocols.deep.findings import Fact, Findings, SourceNote, merge
from assay.protocols.deep.plan import Angle, group_angles, plan_directions, render_plan
from assay.protocols.deep.scoring import (
    authority,
    counted_sources,
    direction_score,
    needs_escalation,
    run_checks,
    weighted_score,
)


def test_worked_examples_of_the_direction_score() -> None:
    # 3 sources (10×0.3) + authority 3 (6×0.3) + best low (2×0.2) + 2 of 5 angles (4×0.2)
    assert weighted_score(3, [3, 3, 3], ["low"], 2, 5) == 6.0
    # 2 sources (8) + authority 3 (6) + medium (6) + 1 of 3 angles (3.33): 2.4+1.8+1.2+0.67
    assert weighted_score(2, [3, 3], ["medium"], 1, 3) == 6.07
    assert weighted_score(0, [], [], 0, 3) == 0.0
    assert weighted_score(1, [5], ["high"], 3, 3) == 1.5 + 3.0 + 2.0 + 2.0
    assert weighted_score(5, [5, 5], ["high", "low"], 4, 4) == 10.0
    assert weighted_score(3, [3, 3, 3], ["low"], 1, 5) == 5.6


def _findings(sources: int, auth: int, confidence: str, covered: int, total: int) -> Findings:
    queries = [f"q{i}" for i in range(total)]
    notes = [
        SourceNote(f"http://s{i}.test/", "t", queries[0], auth, "undated", True, "ok", f"src_{i}")
        for i in range(sources)
    ]
    facts = [
        Fact("a fact", notes[i % sources].url, f"src_{i % sources}", "claim_001", confidence,  # type: ignore[arg-type]
             queries[i])
        for i in range(covered)
    ]  # fmt: skip
    facts += [  # every source gave a relevant fact, answering no further angle
        Fact("a fact", n.url, f"src_{i}", "claim_002", confidence, "")  # type: ignore[arg-type]
        for i, n in enumerate(notes)
    ]
    return Findings(1, "d", queries, notes, facts)


def test_the_six_point_zero_boundary_does_not_escalate_but_below_does() -> None:
    at = _findings(3, 3, "low", 2, 5)
    assert direction_score(at) == 6.0
    checks = run_checks(_findings(3, 3, "medium", 5, 5))
    assert not checks.failed()
    assert not needs_escalation(checks, 6.0)
    assert needs_escalation(checks, 5.99)
    below = _findings(3, 3, "low", 1, 5)
    assert direction_score(below) == 5.6
    assert run_checks(below).failed() == ["coverage", "confidence_floor"]


def test_the_four_checks() -> None:
    fabricated = _findings(2, 3, "high", 1, 1)
    fabricated.facts.append(Fact("x", "http://elsewhere.test/", "src_9", "claim_2", "high", "q0"))
    checks = run_checks(fabricated)
    assert checks.accepted_sources and checks.coverage and checks.confidence_floor
    assert not checks.no_fabrication
    assert not run_checks(_findings(2, 2, "medium", 1, 1)).accepted_sources
    # an unrated host earns 3 once an independent origin confirms its fact (high)
    assert run_checks(_findings(2, 2, "high", 1, 1)).accepted_sources


def test_authority_rule() -> None:
    assert authority("https://www.nasa.gov/x") == 5
    assert authority("https://arxiv.org/abs/1") == 5
    assert authority("https://en.wikipedia.org/wiki/X") == 4
    assert authority("https://www.reuters.com/a") == 3
    assert authority("http://127.0.0.1:8000/pages/a") == 2  # unrated: not "good"
    assert authority("https://www.reddit.com/r/a") == 2
    assert authority("https://twitter.com/a") == 1


def test_more_than_six_angles_are_grouped_into_six(tmp_path: Path) -> None:
    angles = [
        Angle(f"Angle {n}", f"angle {n}", (f"q{n}a", f"q{n}b", f"q{n}c"), "official", f"a{n}")
        for n in range(8)
    ]
    grouped = group_angles(angles, 6)
    assert len(grouped) == 6
    assert all(3 <= len(a.queries) <= 5 for a in grouped)
    queries = [q for a in grouped for q in a.queries]
    assert len(queries) == len(set(queries))  # non-overlapping
    directions, _ = asyncio.run(
        plan_directions("Are Vellwort, Tarnbloom, Ilex and Quercus plant genera?", tmp_path)
    )
    assert 3 <= len(directions) <= 6
    text = render_plan(directions)
    for d in directions:
        assert f"Output: {d.output_file}" in text and d.output_file.parent == tmp_path
        assert all(f'  - "{q}"' in text for q in d.queries)
    assert text.count("Acceptance: ") == len(directions)


def test_a_model_plan_that_times_out_falls_back_to_the_code_plan(tmp_path: Path) -> None:
    from assay.models import ModelTimeout
    from assay.models.testing import ScriptedModel

    model = ScriptedModel([ModelTimeout("scripted:model: no reply within 1.0 s")])
    directions, notes = asyncio.run(
        plan_directions("Demons in Mesopotamian mythology", tmp_path, model=model)
    )
    assert 3 <= len(directions) <= 6
    assert all(3 <= len(d.queries) <= 5 for d in directions)
    assert notes and "no valid plan" in notes[0]


def test_sources_count_once_per_url_and_once_per_origin() -> None:
    first = _findings(2, 3, "medium", 1, 1)
    retry = _findings(2, 3, "medium", 1, 1)  # the same two URLs, read again by a retry
    merged = merge(first, retry)
    assert len(counted_sources(merged)) == 2
    one_origin = {"src_0": "site.test", "src_1": "site.test"}
    assert len(counted_sources(merged, one_origin)) == 1
    assert direction_score(merged, one_origin) < direction_score(merged)
    off = _findings(2, 3, "medium", 1, 1)
    off.facts = [replace(f, relevant=False) for f in off.facts]  # off-topic facts only
    assert counted_sources(off) == [] and direction_score(off) == 0.0


def test_the_next_hop_is_named_in_its_fact() -> None:
    from assay.models.testing import ScriptedModel
    from assay.protocols.deep.hop import next_hop

    question = "Who directed the film that was shot in Varholm in 1986?"
    facts = ['Films such as "Grey Tide" (1986) and "North Light" were shot in Varholm.']
    model = ScriptedModel([{"entity": "Grey Tide", "fact": 1}])
    assert asyncio.run(next_hop(question, facts, model=model)) == "Grey Tide"
    invented = ScriptedModel([{"entity": "Blue Moon", "fact": 1}] * 3)  # in no fact
    assert asyncio.run(next_hop(question, facts, model=invented)) == "Grey Tide"  # code rule
    assert len(invented.requests) > 1  # the wrong name was fed back
    assert asyncio.run(next_hop("Are Ilex and Quercus both genera?", facts)) is None
