"""Grounded answers: a short, direct answer to the question, resting on claims.

Every protocol answers through ``answer_question``: it takes the question and the run's
claims and returns an :class:`Answer` — the short answer in the question's shape (a date
for "when", a name for "who", yes/no first for yes/no questions, one side for "which … A
or B") and the ids of the claims it rests on — or, when nothing answers the question, an
answer whose ``found`` is false and whose claim ids are the closest evidence.

Only claims a source supports and that were not recorded as off-topic are used
(ranking.py). With a model the answer is the model's, from a checked typed step over the
claims in their passages (model_step.py): when no reply passes the check, there is no
answer and ``reason`` says why — a rule's guess never replaces it. Without a model the
answer comes from span extraction (spans.py, comparisons.py; typed.py when the question
names the kind it asks for); with one, when that rule answers otherwise than the model, the
model reads again, shown both answers and the claims they rest on, and what it then answers
stands (``_both``); the rule's answer is kept as a flag on the answer (flags.py).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

from assay.answers.comparisons import choice, yes_no
from assay.answers.flags import AnswerFlag, disagreement
from assay.answers.model_step import ModelSaid, model_answer
from assay.answers.ranking import Ranked, rank, usable
from assay.answers.spans import Span, best_span
from assay.answers.typed import typed_span
from assay.budget import Budget
from assay.models import Model
from assay.models.step import ModelStep
from assay.models.usage import UsageMeter
from assay.reading.passages import Page, ReadingBudget
from assay.reading.questions import Shape, shape_of
from assay.store.claims import ClaimRecord

NO_ANSWER = "No direct answer found"
MODEL_CLAIMS = 10
"""At most this many claims are offered to the model (fewer when their passages fill the
answer budget)."""
ANSWER_RETRIES = 1
"""A rejected answer is asked again once, with the reason. In every model run kept from
sessions 7 and 8 (158 questions, PopQA and HotpotQA), no answer passed the check on a
second or third attempt that had failed the first: the third attempt only spent tokens."""

__all__ = ["NO_ANSWER", "Answer", "AnswerFlag", "Shape", "answer_question", "shape_of"]


@dataclass(frozen=True)
class Answer:
    """The answer to a question, and the claims it rests on (or the closest evidence)."""

    text: str
    claim_ids: tuple[str, ...]
    method: str
    reason: str = ""
    """Why there is no answer (a model's: its replies failed the check, or it found none)."""
    flags: tuple[AnswerFlag, ...] = ()
    """Rules that answer otherwise than the model did."""

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
    pages: Mapping[str, Page] | None = None,
    reading: ReadingBudget | None = None,
) -> Answer:
    """The short answer to ``question`` from ``claims``, with a model or without one.

    ``pages`` (the run's snapshots by source id, ``claims.passages.run_pages``) let the
    model read each claim in its passage; without them it reads the claims alone.
    ``reading`` sizes what it reads (default: for the model's context)."""
    ranked = rank(question, usable(claims))
    if not ranked:
        return Answer("", (), "none")
    shape = shape_of(question)
    rule = _extract(question, shape, ranked)
    if model is None:
        if rule is not None:
            return Answer(rule.text, rule.claim_ids, f"extractive:{shape.kind}")
        return Answer("", ranked[0].basis, "none")
    reading = reading or ReadingBudget.for_context(model.profile.context_window)
    step = ModelStep(model, budget=budget, meter=meter, max_tokens=120, retries=ANSWER_RETRIES)
    pages = pages or {}
    said = await model_answer(step, question, shape, ranked[:MODEL_CLAIMS], pages, reading.answer)
    flag = disagreement(shape, said.text, f"extractive:{shape.kind}", rule.text) if rule else None
    # a "how" rule answers with its best claim's whole sentence: not an answer to choose
    if flag is not None and rule is not None and shape.kind != "how":
        shown, candidates = _both(said, rule, ranked)
        # Asked once, over a third of the answer's budget (only the claims the two answers
        # rest on are shown): with a retry and half the budget, HotpotQA runs spent 4,025
        # tokens a question, over the 4,000 a question a whole run is held to (issue 24).
        once, tokens = step.retrying(0), reading.answer // 3
        again = await model_answer(once, question, shape, shown, pages, tokens, candidates)
        said = again if again.text else said  # none, or a reply that failed: the first stands
        flag = replace(flag, settled=said.text)
    flags = (flag,) if flag is not None else ()
    method = f"model:{model.name}"
    if said.text:
        return Answer(said.text, said.claim_ids, method, flags=flags)
    return Answer("", ranked[0].basis, method, reason=said.reason, flags=flags)


def _both(said: ModelSaid, rule: Span, ranked: Sequence[Ranked]) -> tuple[list[Ranked], list[str]]:
    """What the model reads again when a rule answers otherwise: the claims either answer
    rests on, and the answers — its own and the rule's (or the rule's alone, when it gave
    none) — to choose from.

    When the two disagreed on the tune halves, each was right about as often as the other
    (HotpotQA 8 and 7 of 50 questions, PopQA 4 and 3 of 80): a choice between two answers
    shown with their claims is an easier reading for a small model than the open question.
    The rule only proposes; the model decides and the check holds its reply as any."""
    basis = {*said.claim_ids, *rule.claim_ids}
    shown = [item for item in ranked if item.claim.id in basis]
    return shown, sorted({said.text, rule.text} - {""}, key=str.casefold)


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
