"""Answers to comparisons without a model: yes/no questions about two (or more) named
things, and "which … A or B" choices.

A yes/no is yes when every side has a claim stating what is asked; for "the same …" both
sides must name the same thing, and for a place ("the same state") the places each side is
located in are compared, the country both are in not counting as a shared state. A choice
is decided by the years or numbers each side's claims state, or else by which side's claims
state what is asked. A claim names a side by the words no other side has.
"""

from __future__ import annotations

from collections.abc import Sequence

from assay.answers.ranking import Ranked
from assay.answers.spans import Span
from assay.reading.names import names_in, naming_words
from assay.reading.places import BROADEST_PLACES, PLACES, shared_places
from assay.reading.questions import Shape, echoes, same_what
from assay.reading.values import first_value
from assay.text import content_words, word_set

_ASKING = word_set("both also same either one")


def yes_no(question: str, shape: Shape, ranked: Sequence[Ranked]) -> Span | None:
    """Yes when every thing the question names has a claim stating what it asks; for
    "the same …" both sides must state the same name (a state, a country)."""
    sides = [s for s in shape.options if content_words(s)]
    if not sides:
        return None
    named = set().union(*(content_words(s) for s in sides))
    asked = [w for w in content_words(question) if w not in named and w not in _ASKING]
    evidence = [_about(side, ranked, sides) for side in sides]
    if any(not claims for claims in evidence):
        return None
    basis = tuple(dict.fromkeys(c.claim.id for claims in evidence for c in claims[:1]))
    if shape.direction and len(sides) == 2:
        measured = [_measure(shape.direction, claims) for claims in evidence]
        if measured[0] is None or measured[1] is None:
            return None
        first_wins = (
            measured[0] < measured[1]
            if shape.direction in ("earlier", "less")
            else measured[0] > measured[1]
        )
        return Span("yes" if first_wins else "no", basis)
    attribute = same_what(question)
    if attribute in PLACES:
        texts = [[item.claim.text for item in claims[:3]] for claims in evidence]
        shared = shared_places(texts, broadest_counts=attribute in BROADEST_PLACES)
        return Span("yes" if shared else "no", basis)
    if attribute:
        values = [_values(claims, question) for claims in evidence]
        return Span("yes" if set.intersection(*values) else "no", basis)
    # every side has a claim that states all that is asked of it
    holds = [max(_coverage(asked, c.claim.text) for c in claims) == 1.0 for claims in evidence]
    return Span("yes" if all(holds) else "no", basis)


def choice(question: str, shape: Shape, ranked: Sequence[Ranked]) -> Span | None:
    """The option whose claims decide the comparison: the earlier (or later) year, the
    larger (or smaller) number, or else the one whose claims state what is asked."""
    evidence = {option: _about(option, ranked, shape.options) for option in shape.options}
    known = {option: claims for option, claims in evidence.items() if claims}
    if not known:
        return None
    if shape.direction in ("earlier", "later", "more", "less") and len(known) == len(evidence):
        measured = {o: _measure(shape.direction, claims) for o, claims in known.items()}
        if all(value is not None for value in measured.values()):
            pick = (min if shape.direction in ("earlier", "less") else max)(
                measured, key=lambda o: measured[o] or 0.0
            )
            basis = tuple(claims[0].claim.id for claims in known.values())
            return Span(pick, basis)
    named = set().union(*(content_words(o) for o in shape.options))
    asked = [w for w in content_words(question) if w not in named]
    scores = {o: max(_coverage(asked, c.claim.text) for c in claims) for o, claims in known.items()}
    pick = max(scores, key=lambda o: scores[o])
    if scores[pick] == 0.0:
        return None
    return Span(pick, (known[pick][0].claim.id,))


def _about(thing: str, ranked: Sequence[Ranked], sides: Sequence[str] = ()) -> list[Ranked]:
    """Claims that name ``thing`` (most of its words, or of the words no other side has:
    "Tarn Valley International Airport" is not named by a claim on "Larkspur International
    Airport"), in rank order."""
    wanted = set(content_words(thing))
    others = set().union(*(content_words(s) for s in sides if s != thing))
    wanted = (wanted - others) or wanted
    return [r for r in ranked if len(wanted & naming_words(thing, r.claim.text)) * 2 > len(wanted)]


def _measure(direction: str, claims: Sequence[Ranked]) -> float | None:
    """The first year (for earlier/later) or number (more/less) the best claims state."""
    years = direction in ("earlier", "later")
    return first_value([item.claim.text for item in claims[:2]], years=years)


def _values(claims: Sequence[Ranked], question: str) -> set[str]:
    asked = set(content_words(question))
    return {
        name.lower()
        for item in claims[:3]
        for name in names_in(item.claim.text)
        if not echoes(name, asked)
    }


def _coverage(wanted: Sequence[str], text: str) -> float:
    if not wanted:
        return 0.0
    present = set(content_words(text))
    return sum(w in present for w in wanted) / len(wanted)
