"""Grounding: whether a written sentence is supported by the quotes it cites.

Prose a model writes (a summary, a finding, a synthesis paragraph) keeps the ledger's
honesty only if each sentence is checked against the verbatim quotes of the claims it
cites. The check is lexical and repeatable: most of the sentence's content words must be
in the cited quotes, and every number it states must be quoted.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from assay.claims.normalize import numbers_in
from assay.text import content_words

_CITATION = re.compile(r"\(claim_\d+[^)]*\)|\[\d+(?:\]\[\d+)*\]|\bclaim_\d+\b")
MIN_COVERAGE = 0.6
"""The share of a sentence's content words its cited quotes must contain."""


@dataclass(frozen=True)
class Grounding:
    """The outcome of checking one sentence against its cited quotes."""

    supported: bool
    coverage: float
    missing_numbers: tuple[str, ...] = ()

    @property
    def reason(self) -> str:
        if self.supported:
            return "supported by its cited quotes"
        if self.missing_numbers:
            return f"numbers not in its cited quotes: {', '.join(self.missing_numbers)}"
        return f"only {self.coverage:.0%} of its words are in its cited quotes"


def grounded(sentence: str, quotes: Sequence[str]) -> Grounding:
    """Check ``sentence`` against ``quotes``; a sentence that cites nothing is unsupported."""
    if not quotes:
        return Grounding(False, 0.0)
    sentence = _CITATION.sub(" ", sentence)  # its own markers are not statements
    wanted = set(content_words(sentence))
    available = {word for quote in quotes for word in content_words(quote)}
    share = len(wanted & available) / len(wanted) if wanted else 1.0
    quoted_numbers = set().union(*(numbers_in(q) for q in quotes))
    missing = tuple(sorted(numbers_in(sentence) - quoted_numbers))
    return Grounding(share >= MIN_COVERAGE and not missing, share, missing)
