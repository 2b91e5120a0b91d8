"""Relevance: how much a text speaks to the question (or direction) it was gathered for.

Every source and every claim carries a :class:`Relevance` in its ledger line — a score in
[0, 1], whether it clears the bar, and the method that computed it — so an off-topic line
stays in the ledger (nothing is lost) while answers, findings and summaries use only what
is relevant. ``coverage`` is the shared word-overlap primitive the other checks use.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from assay.claims.names import names_in
from assay.store.claims import ClaimRecord
from assay.text import content_words

RELEVANT = 0.5
"""The score a text needs to count as relevant (see benchmarks/README.md for how it was set)."""

LEXICAL = "lexical-v2"
SATURATION = 10.0
"""A long question is not asked whole of any one text: a text that matches this much
weight (a two-word name and a few other words) is as relevant as it gets."""


@dataclass(frozen=True)
class Relevance:
    """A text's relevance to a question, and how it was computed."""

    score: float
    method: str
    target: str = ""
    """The question or sub-question the score is against, when there were several."""

    @property
    def relevant(self) -> bool:
        return self.score >= RELEVANT

    def to_json(self) -> dict[str, object]:
        found: dict[str, object] = {
            "score": round(self.score, 3),
            "method": self.method,
            "relevant": self.relevant,
        }
        return found | ({"target": self.target} if self.target else {})


def coverage(claim: str, sentence: str) -> float:
    """The share of ``claim``'s content words (stemmed) that ``sentence`` contains."""
    wanted = set(content_words(claim))
    if not wanted:
        return 0.0
    return len(wanted & set(content_words(sentence))) / len(wanted)


def relevance(question: str, text: str, *, title: str = "") -> Relevance:
    """How much ``text`` (a claim, or a source with its ``title``) speaks to ``question``.

    The score is the weighted share of the question's content words that the text or its
    title contains. A name the question gives ("Journal of Example Studies") counts twice
    its length, and only whole: a text naming another journal of other studies shares
    two of its words but not the name, and gets a quarter of their weight. The weight
    a text must match saturates at ``SATURATION`` (see benchmarks/README.md).
    """
    names, others = _parts(question)
    total = min(SATURATION, sum(2.0 * len(n) for n in names) + len(others))
    if not total:
        return Relevance(0.0, LEXICAL)
    found = set(content_words(text)) | set(content_words(title))
    score = sum(1.0 for word in others if word in found)
    for name in names:
        matched = len(name & found)
        score += 2.0 * len(name) if matched == len(name) else 0.5 * matched
    return Relevance(min(1.0, score / total), LEXICAL)


def best_relevance(targets: Sequence[str], text: str, *, title: str = "") -> Relevance:
    """The relevance of ``text`` to the first of ``targets`` (the question, then the plan's
    sub-questions and the follow-up searches) it speaks to most."""
    best = Relevance(0.0, LEXICAL)
    for target in targets:
        found = relevance(target, text, title=title)
        if found.score > best.score:
            best = Relevance(found.score, found.method, target)
    return best


def _parts(question: str) -> tuple[list[set[str]], set[str]]:
    """The question's names (each a set of stems) and its other content words."""
    names = [set(content_words(n)) for n in names_in(question, skip_first=True)]
    names = [n for n in names if n]
    named = set().union(*names)
    return names, {w for w in content_words(question) if w not in named}


def recorded_relevant(claim: ClaimRecord) -> bool:
    """The relevance recorded in the claim's ledger line (a claim without one counts)."""
    recorded = (claim.model_extra or {}).get("relevance")
    return not isinstance(recorded, dict) or bool(recorded.get("relevant", True))
