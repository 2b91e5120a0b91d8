"""A research report's finding headings are for its reader: the question, a plan
question, or "Further evidence" — never the search string a follow-up round used; an answer
the check refused says why."""

from __future__ import annotations

from assay.answers import Answer
from assay.protocols.research.hops import side_targets
from assay.protocols.research.plan import Plan
from assay.protocols.research.synthesis import by_question, shown_answer
from assay.store.claims import ClaimRecord

QUESTION = "Is Vellwort or Davidia a plant genus?"
SUBQUESTION = "Where does Vellwort grow?"


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


def test_an_answer_the_check_refused_says_why_beside_the_closest_evidence() -> None:
    claim = ClaimRecord(id="claim_001", text="Vell Review was first published in 1922.",
                        confidence="medium", sourceIds=["src_01"], status="weak")  # fmt: skip
    reason = "no answer of the model passed the check: so 'Tarn Monthly' is not the earlier"
    refused = Answer("", ("claim_001",), "model:scripted:model", reason=reason)
    shown = shown_answer(refused, [claim])
    assert shown.startswith(f"No direct answer found ({reason}); closest evidence: Vell Review")
    none = shown_answer(Answer("", ("claim_001",), "none"), [claim])
    assert none.startswith("No direct answer found; closest evidence:")
