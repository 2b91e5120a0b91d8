"""Synthesis: report.md per the report-structure skill, and the run's answer.

Executive summary (the answer, counts, the verified findings first), findings with inline
citations and status markers, open questions, and the source list — built by code from
the claim ledger, so nothing in the report is unattributed. A model's free-text answer is
shown as the model's synthesis, never as a verified claim; without a model the answer is
the best-supported claim itself.
"""

from __future__ import annotations

from assay.answers import answer_question
from assay.claims.corroborate import COVERAGE
from assay.claims.relevance import coverage
from assay.engines.extractive.picker import pick_claims
from assay.events import ReportUpdated
from assay.protocols.research.plan import Plan
from assay.protocols.runner import RunContext
from assay.report.claims_report import render_claims_report
from assay.report.markers import claim_marker, neutralize
from assay.store.claims import ClaimLedger, ClaimRecord
from assay.store.runs import REPORT_FILE
from assay.store.sources import SourceLedger

_RANK = {"verified": 0, "weak": 1, "contradicted": 2, "needs_review": 3, "unverified": 4}
_CONFIDENCE = {"high": 0, "medium": 1, "low": 2}


def best_claim(question: str, claims: list[ClaimRecord]) -> ClaimRecord | None:
    """The best-supported claim, and among equals the one most relevant to the question
    (the picker's BM25 over the claims themselves, so rare question words weigh most)."""
    picked = pick_claims(question, "\n\n".join(c.text for c in claims), max_claims=len(claims))
    relevance = {p.sentence: p.score for p in picked}
    ranked = sorted(
        claims,
        key=lambda c: (
            _RANK[c.status],
            -relevance.get(c.text, 0.0),
            _CONFIDENCE[c.confidence],
            c.id,
        ),
    )
    return ranked[0] if ranked else None


def open_questions(plan: Plan | None, claims: list[ClaimRecord]) -> list[str]:
    if plan is None:
        return []
    supported = [c.text for c in claims if c.status in ("verified", "weak")]
    return [
        q for q in plan.questions if not any(coverage(q, text) >= COVERAGE for text in supported)
    ]


async def write_report(context: RunContext, plan: Plan | None, model_answer: str) -> str:
    """Write report.md; returns the run's answer."""
    run = context.run
    claims = ClaimLedger(run.dir).claims()
    sources = SourceLedger(run.dir).records()
    best = best_claim(run.info.topic, claims)
    grounded = await answer_question(
        run.info.topic, claims, model=context.model, budget=context.budget, meter=context.meter
    )
    if grounded.method.startswith("model:"):
        answer = grounded.text
        basis = next(c for c in claims if c.id == grounded.claim_ids[0])
        shown = (
            f"{neutralize(answer)} — from {claim_marker(basis.id, basis.status)}: "
            f"{neutralize(basis.text)}"
        )
    elif model_answer:
        answer = model_answer
        shown = (
            f"{neutralize(model_answer)} _(synthesis by {context.engine_line}; "
            "the findings below say what is verified)_"
        )
    elif best is not None:
        answer = best.text
        shown = f"{neutralize(best.text)} {claim_marker(best.id, best.status)}"
    else:
        answer = ""
        shown = "no source read in this run answers the question."
    text = render_claims_report(
        run.info.topic,
        claims,
        sources,
        written_by=context.engine_line,
        answer=shown,
        open_questions=open_questions(plan, claims),
    )
    run.write_file(REPORT_FILE, text)
    run.events.emit(ReportUpdated(chars=len(text), path=REPORT_FILE))
    return answer
