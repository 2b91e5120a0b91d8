"""Answers of a named kind: "What is X's occupation?", "In what city was X born?".

When the question names the kind of thing it asks for, the answer is the span of the best
ranked claim that is of that kind by meaning (``reading.kinds``): in "X was a Vellish
soldier and politician", "soldier" (an occupation), not "Vellish" (a nationality).
Candidates are the claim's names for a place (never one an indefinite article describes:
"is an American actor"), else its words and two-word phrases of one case ("power metal"),
past its subject's own name; none may only repeat the question. Of the best and its kin
("cartoonist and illustrator") the answer is the one the claim lists first, its primary
one. Nothing is guessed: when no ranked claim has a candidate of the kind, there is none.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Sequence
from dataclasses import dataclass

from assay.answers.ranking import Ranked
from assay.answers.spans import CANDIDATE_CLAIMS, Span
from assay.reading.kinds import kind_margins
from assay.reading.names import name_words, names_at, subject
from assay.reading.questions import Shape, echoes
from assay.text import STOP_WORDS, content_words

CUE_WORDS = 4
"""A place is cued when the question's word stands this few words before it ("born in
July 1960 in Amberlow" is not; "born 5 April 1958, Tarnby" is: digits are no words)."""
_WORD = re.compile(r"\b(?![a-z'’-]*ly\b)[A-Za-z][A-Za-z'’-]*")  # no adverb ("professionally")
_JOINED = re.compile(r"(?:, | and | or |, and |, or )")


@dataclass(frozen=True)
class _Candidate:
    start: int
    end: int
    text: str


_INDEFINITE = re.compile(r"\b(?:an?|An?)\s+$")


def typed_span(question: str, shape: Shape, ranked: Sequence[Ranked]) -> Span | None:
    """The span of the asked kind from the best ranked claim that has one, or ``None``.

    For a place, a name the claim gives right after what the question asks of it ("born
    in Vellport", "born 5 April 1958, Tarnby"), or right after the year that opens a
    life span's brackets ("X (1570 in Gniezno – 1637 in Kraków)"), comes first: the
    sentence says it is that place, which an embedding of a little-known town's name
    alone cannot tell. A name sharing a word with the subject's names (a birth name: "X
    (born Anna Y; …)") is no place."""
    asked = set(content_words(question))
    named = name_words(question)
    if shape.kind == "where":
        cues = asked - named - set(content_words(shape.attribute))
        cued = _cued_place(cues, ranked[:CANDIDATE_CLAIMS], asked, named)
        if cued is not None:
            return cued
    for item in ranked[:CANDIDATE_CLAIMS]:
        text = item.claim.text
        found = [c for c in _candidates(shape, text) if not echoes(c.text, asked)]
        if shape.kind == "where":
            found = _not_described(text, found, named)
        margins = kind_margins(shape.attribute, [c.text for c in found])
        fitting = [(m, c) for m, c in zip(margins, found, strict=True) if m > 0]
        if not fitting:
            continue
        best = max(fitting, key=lambda pair: pair[0])[1]
        # a phrase of the kind holding the best word is the fuller answer ("power metal")
        best = max((c for _, c in fitting if c.start <= best.start and best.end <= c.end),
                   key=lambda c: c.end - c.start)  # fmt: skip
        # the first of the things a definition lists is its primary one
        return Span(_first_listed(text, best, [c for _, c in fitting]).text, item.basis)
    return None


_LIFE_SPAN = re.compile(
    r"^[^()]{1,80}(?:\([^()]*\) )?\((?![^()]*\bdied\b)[^()]*?\b\d{3,4}(?:, ?| in )$"
)  # "X (c. 1480 in Gniezno – …", "X (2 May 1886, Gniezno – …"; not "(died 1634 in …"


def _cued_place(
    cues: set[str], ranked: Sequence[Ranked], asked: set[str], named: set[str]
) -> Span | None:
    for item in ranked:
        text = item.claim.text
        cued = []
        for candidate in _candidates(Shape("where"), text):
            before = [m.group() for m in _WORD.finditer(text[: candidate.start])][-CUE_WORDS:]
            life = _LIFE_SPAN.match(text, 0, candidate.start)
            said = cues & set(content_words(" ".join(before)))
            if (said or life) and not echoes(candidate.text, asked):
                cued.append(candidate)
        for candidate in _not_described(text, cued, named):
            return Span(candidate.text, item.basis)
    return None


def _not_described(text: str, found: list[_Candidate], named: set[str]) -> list[_Candidate]:
    """``found`` without the names an indefinite article introduces ("is an American
    actor" describes; a place is named bare or with "the": "born in Gniezno", "the Bronx")
    and without those that share a word with the subject's names (they name the subject)."""
    return [
        c
        for c in found
        if not _INDEFINITE.search(text[: c.start]) and not named & set(content_words(c.text))
    ]


def _candidates(shape: Shape, text: str) -> list[_Candidate]:
    if shape.kind == "where":  # a place is named
        return [_Candidate(at, at + len(name), name) for at, name in names_at(text)]
    name = subject(text)  # the subject's own name is none of its attributes
    opening = text.find(name) + len(name) if name else 0
    words = [
        _Candidate(m.start(), m.end(), m.group())
        for m in _WORD.finditer(text, opening)
        if m.group().lower() not in STOP_WORDS and content_words(m.group())
    ]
    pairs = [
        _Candidate(a.start, b.end, text[a.start : b.end])
        for a, b in itertools.pairwise(words)
        # a phrase is one kind of word: "power metal", "New York", not "Polish sculptor"
        if text[a.end : b.start] == " " and a.text[0].isupper() == b.text[0].isupper()
    ]
    return words + pairs


def _first_listed(text: str, best: _Candidate, fitting: list[_Candidate]) -> _Candidate:
    """The first of the candidates of ``best``'s kind it is listed with ("X, Y and Z": X)."""
    while True:
        joined = (c for c in fitting if _JOINED.fullmatch(text[c.end : best.start]))
        before = next(joined, None)
        if before is None:
            return best
        best = before
