"""Flags on an answer: where a rule reads the claims otherwise than the model answered.

With a model, the answer is the model's, checked by code against what it cites
(model_step.py); the extractive rules (spans, typed spans, comparisons) still read the same
claims, and their answer is kept as a flag when it differs — a yes/no of the other
polarity, another name or date, or an answer where the model found none — so a reader
(and an evaluation) sees the disagreement without the rule ever replacing the model. The
model then reads again, shown both answers (``answers._both``); the flag keeps what it
said first and what it settled on.
"""

from __future__ import annotations

from dataclasses import dataclass

from assay.claims.normalize import numbers_in
from assay.language import report_text
from assay.reading.questions import Shape
from assay.text import content_words


@dataclass(frozen=True)
class AnswerFlag:
    """A rule that answers otherwise than the model did."""

    rule: str
    """The rule, as an answer's method names it (``extractive:yesno``)."""
    rule_answer: str
    model_answer: str
    """"" when the model gave no answer."""
    settled: str = ""
    """The model's answer when shown both (``answers._both``): what the answer is."""

    def to_json(self) -> dict[str, str]:
        return {
            "rule": self.rule,
            "ruleAnswer": self.rule_answer,
            "modelAnswer": self.model_answer,
            "settled": self.settled,
        }

    def line(self) -> str:
        """The flag as a report shows it under the answer, in the run's language."""
        said = f"“{self.model_answer}”" if self.model_answer else report_text("no_answer_given")
        line = report_text("flag", rule=self.rule, rule_answer=self.rule_answer, said=said)
        if self.settled and self.settled != self.model_answer:
            line += " " + report_text("settled", settled=self.settled)
        return line


def disagreement(shape: Shape, model_answer: str, rule: str, rule_answer: str) -> AnswerFlag | None:
    """The flag for a rule's answer that differs from the model's, or None when they agree
    (or the rule has none)."""
    if not rule_answer.strip() or agree(shape, model_answer, rule_answer):
        return None
    return AnswerFlag(rule, rule_answer.strip(), model_answer.strip())


def agree(shape: Shape, first: str, second: str) -> bool:
    """Whether two answers say the same: the same yes or no; otherwise the same numbers and
    the content words of one all in the other ("Vellshire" and "Osricby, Vellshire" agree)."""
    if not first.strip() or not second.strip():
        return False
    if shape.kind == "yesno":
        return _polarity(first) == _polarity(second)
    if numbers_in(first) != numbers_in(second):
        return False
    one, other = set(content_words(first)), set(content_words(second))
    if not one and not other:  # "41" and "41": the same numbers, and nothing else
        return bool(numbers_in(first))
    return bool(one and other) and (one <= other or other <= one)


def _polarity(answer: str) -> str:
    return answer.strip().lower().split(" ")[0].strip(",.;:!")
