"""A judge's REFUTES stands only on a disagreement code can see; its SUPPORTS never on one."""

from __future__ import annotations

from pathlib import Path

import pytest

from assay.claims.disagreement import disagreement
from assay.claims.judge import Verdict
from tests.claims.test_engine import CLAIM, SUPPORT, make_run, verify

TOPICAL = "Engineers inspect the Zorbel bridge every spring; it is 420 metres long."


@pytest.mark.parametrize(
    ("claim", "passage", "why"),
    [
        (CLAIM, "Records show the Zorbel bridge is 380 metres long, not 420.", "number"),
        (CLAIM, "The Zorbel bridge is 380 metres long.", "number"),
        ("Arctic sea ice is growing.", "Arctic sea ice is shrinking fast.", "polarity"),
        ("Sea level rise is accelerating.", "Sea level rise is not accelerating.", "polarity"),
        (
            "Marie Curie was born in Paris.",
            "Marie Curie was born in Warsaw.",
            "another value",
        ),
        (
            "Warmer seas are driving the Tarn reef's corals toward collapse.",
            "Recent research shows human activity driving reefs towards a collapse.",
            "",
        ),
        (CLAIM, TOPICAL, ""),
    ],
)
def test_what_code_can_see_of_a_disagreement(claim: str, passage: str, why: str) -> None:
    found = disagreement(claim, passage)
    assert (why in found) if why else found == ""


class SaysOpposite:
    """A judge that labels every page the opposite of what it says (a confused model)."""

    name = "confused"

    def __init__(self, label: str) -> None:
        self.label = label

    async def judge(self, claim: str, evidence: str) -> Verdict:
        return Verdict(self.label, evidence.split(". ")[-1])  # type: ignore[arg-type]


def test_a_refutation_code_cannot_see_leaves_the_claim_for_review(isolated_home: Path) -> None:
    run = make_run(isolated_home, [("http://a.test/1", SUPPORT), ("http://b.test/2", TOPICAL)])
    claim = verify(run, SaysOpposite("REFUTES"))
    assert claim.status == "needs_review"
    assert not [e for e in claim.evidence if e.stance == "refutes"]


def test_a_support_that_says_the_opposite_is_not_support(isolated_home: Path) -> None:
    denial = "The Zorbel bridge is said to be 420 metres long. It is not 420 metres long."
    claim = verify(make_run(isolated_home, [("http://a.test/1", denial)]), SaysOpposite("SUPPORTS"))
    assert claim.status == "needs_review"
    assert not [e for e in claim.evidence if e.stance == "supports"]
