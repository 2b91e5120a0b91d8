"""Disagreement code can see between a claim and a passage: opposite polarity (a negation
on one side only, or an antonym where the claim's word stood), a different number for the
same quantity, or another value (a date, place or name) for the same attribute of the same
subject.

The extractive judge refutes with these signals alone. A model judge's verdict is checked
against them (claims/engine.py): the local 1.5B model labelled REFUTES passages that only
spoke of the same topic ("New Survey Finds Warming Seas Pushing Reefs Toward Collapse"
against "Warmer water is driving the Tarn reef's corals toward collapse").
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from assay.claims import conflict
from assay.claims.agreement import antonym_flips, canonical, compare_numbers, negation_count
from assay.claims.normalize import normalize_text, numbers_in
from assay.text import content_words


@dataclass(frozen=True)
class Polarity:
    """Whether a passage says the opposite of a claim."""

    flipped: bool
    """Net opposite polarity: an odd number of negation mismatches and antonyms."""
    mixed: bool
    """Polarity signals that cancel out (a negation and an antonym): too unsure to support."""


def stems_of(text: str) -> set[str]:
    """The canonical stems of ``text``'s content words (synonyms and directions folded)."""
    return {canonical(s) for s in content_words(text)}


def polarity(claim: str, stems: set[str], passage: str, found: set[str]) -> Polarity:
    """``stems`` and ``found``: the canonical stems of the claim and of the passage."""
    flips = antonym_flips(stems, found)
    shared = {s for s in stems if s in found or partial(s, found)}
    negation_mismatch = negation_count(claim, shared) % 2 != negation_count(passage, stems) % 2
    flipped = negation_mismatch != (len(flips) % 2 == 1)
    return Polarity(flipped, not flipped and (negation_mismatch or bool(flips)))


def partial(word_stem: str, found: set[str]) -> float:
    """Partial credit for a shared 5-letter prefix ("scientist" / "science")."""
    if len(word_stem) < 5:
        return 0.0
    return 0.7 if any(f[:5] == word_stem[:5] and len(f) >= 5 for f in found) else 0.0


def _denies_a_number(claim: str, passage: str) -> bool:
    """Whether the passage negates a number the claim states ("380 metres long, not 420")."""
    text = normalize_text(passage)
    return any(
        re.search(rf"\b(?:not|never|rather than|instead of) (?:\w+ )?{re.escape(n)}\b", text)
        for n in numbers_in(claim)
    )


def slot_conflict(claim: str, passage: str) -> bool:
    """Same subject, and a date, place or name filled with another value."""
    ours, theirs = conflict.read(claim), conflict.read(passage)
    if not conflict.same_subject(ours, theirs):
        return False
    return any(c.kind != "number" for c in conflict.slot_conflicts(ours, theirs))


def disagreement(claim: str, passage: str) -> str:
    """How ``passage`` visibly disagrees with ``claim``, or "" when it does not."""
    if polarity(claim, stems_of(claim), passage, stems_of(passage)).flipped:
        return "opposite polarity"
    if compare_numbers(claim, passage).conflict or _denies_a_number(claim, passage):
        return "a different number"
    if slot_conflict(claim, passage):
        return "another value for the same attribute"
    return ""
