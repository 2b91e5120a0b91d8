"""Grounded answers: a short, direct answer to the question, resting on claims.

Every protocol answers through ``answer_question``: it takes the question and the run's
claims and returns an :class:`Answer` — the short answer in the question's shape (a date
for "when", a name for "who", yes/no first for yes/no questions, one side for "which … A
or B") and the ids of the claims it rests on — or, when nothing answers the question, an
answer whose ``found`` is false and whose claim ids are the closest evidence.

Only claims a source supports and that were not recorded as off-topic are used
(ranking.py). With a model the answer comes from a checked typed step (model_step.py);
when it has none, or without a model, from span extraction (spans.py, comparisons.py;
typed.py when the question names the kind it asks for).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from assay.answers.comparisons import choice, yes_no
from assay.answers.kinds import Shape, shape_of
from assay.answers.model_step import model_answer
from assay.answers.ranking import Ranked, rank, usable
from assay.answers.spans import Span, best_span
from assay.answers.typed import typed_span
from assay.budget import Budget
from assay.models import Model
from assay.models.step import ModelStep
from assay.models.usage import UsageMeter
from assay.store.claims import ClaimRecord

NO_ANSWER = "No direct answer found"
MODEL_CLAIMS = 10
"""How many claims the model sees (a small model's context is small)."""

__all__ = ["NO_ANSWER", "Answer", "Shape", "answer_question", "shape_of"]


@dataclass(frozen=True)
class Answer:
    """The answer to a question, and the claims it rests on (or the closest evidence)."""

    text: str
    claim_ids: tuple[str, ...]
    method: str

    @property
    def found(self) -> bool:
        return bool(self.text)


async def answer_question(
    question: str,
    claims: Sequence[ClaimRecord],
    *,
    model: Model | None = None,
    budget: Budget | None = None,
    meter: UsageMeter | None = None,
) -> Answer:
    """The short answer to ``question`` from ``claims``, with a model or without one."""
    ranked = rank(question, usable(claims))
    if not ranked:
        return Answer("", (), "none")
    shape = shape_of(question)
    if model is not None:
        step = ModelStep(model, budget=budget, meter=meter, max_tokens=120, retries=2)
        span = await model_answer(step, question, shape, ranked[:MODEL_CLAIMS])
        if span is not None:
            return Answer(span.text, span.claim_ids, f"model:{model.name}")
    span = _extract(question, shape, ranked)
    if span is not None:
        return Answer(span.text, span.claim_ids, f"extractive:{shape.kind}")
    return Answer("", ranked[0].basis, "none")


def _extract(question: str, shape: Shape, ranked: Sequence[Ranked]) -> Span | None:
    """The answer without a model, from ``ranked`` claims (best first), or ``None``."""
    if shape.kind == "yesno":
        return yes_no(question, shape, ranked)
    if shape.kind == "choice":
        return choice(question, shape, ranked)
    if shape.kind == "how":
        return Span(" ".join(ranked[0].claim.text.split()), ranked[0].basis)
    if shape.attribute:
        typed = typed_span(question, shape, ranked)
        if typed is not None:
            return typed
    return best_span(question, shape, ranked)
