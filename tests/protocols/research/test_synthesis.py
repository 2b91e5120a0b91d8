"""A research report's finding headings are for its reader: the question, a plan
question, or "Further evidence" — never the search string a follow-up round used."""

from __future__ import annotations

from assay.protocols.research.hops import side_targets
from assay.protocols.research.plan import Plan
from assay.protocols.research.synthesis import by_question
from assay.store.claims import ClaimRecord

QUESTION = "Is Pterocarya or Davidia a plant genus?"
SUBQUESTION = "Where does Pterocarya grow?"


def claim(number: int, target: str | None) -> ClaimRecord:
    extra = {} if target is None else {"relevance": {"relevant": True, "target": target}}
    return ClaimRecord.model_validate(
        {"id": f"claim_{number:03d}", "text": f"Claim {number}.", "confidence": "medium",
         "sourceIds": ["src_01"], **extra}
    )  # fmt: skip


def test_follow_up_claims_are_further_evidence_and_a_sides_claims_answer_the_question() -> None:
    side = side_targets(QUESTION)[0]
    plan = Plan(QUESTION, [QUESTION, SUBQUESTION], "read")
    claims = [claim(1, None), claim(2, SUBQUESTION), claim(3, side), claim(4, "Every claim"),
              claim(5, "Davidia involucrata")]  # fmt: skip
    groups = by_question(QUESTION, plan, claims)
    headings = [heading for heading, _ in groups]
    assert headings == [QUESTION, SUBQUESTION, "Further evidence"]
    assert [[c.id for c in group] for _, group in groups] == [
        ["claim_001", "claim_003"],
        ["claim_002"],
        ["claim_004", "claim_005"],
    ]
    assert not any("search" in heading.lower() for heading in headings)
