"""Answers of a named kind: "What is X's occupation?", "In what city was X born?".

When the question names the kind of thing it asks for, the answer is the span of the best
ranked claim that is of that kind by meaning (``reading.kinds``): in "X was an Australian
soldier and politician", "soldier" (an occupation), not "Australian" (a nationality).
Candidates are the claim's names for a place (never one an indefinite article describes:
"born 1950, is an American actor"), else its words and two-word phrases of one case
("power metal", "New York"); none may only repeat the question. Of the best candidate and
its kin, joined to it by "and" or a comma in the same claim ("cartoonist and illustrator"),
the answer is the first the claim lists, its primary one ("cartoonist").
Nothing is guessed: when no ranked claim has a candidate of the kind, there is none.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Sequence
from dataclasses import dataclass

from assay.answers.ranking import Ranked
from assay.answers.spans import CANDIDATE_CLAIMS, Span, echoes
from assay.reading.kinds import kind_margins
from assay.reading.names import names_in
from assay.reading.questions import Shape
from assay.text import STOP_WORDS, content_words

CUE_WORDS = 4
"""A place is cued when the question's word stands this few words before it ("born in
July 1960 in Dharan" is not; "born 5 April 1958, Birkenhead" is: digits are no words)."""
_WORD = re.compile(r"[A-Za-z][A-Za-z'’-]*")
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
    in Brisbane", "born Dresden, East Germany", "born 5 April 1958, Birkenhead") comes
    first: the sentence says it is that place, which an embedding of a little-known town's
    name alone cannot tell."""
    asked = set(content_words(question))
    if shape.kind == "where":
        cued = _cued_place(question, shape, ranked[:CANDIDATE_CLAIMS], asked)
        if cued is not None:
            return cued
    for item in ranked[:CANDIDATE_CLAIMS]:
        text = item.claim.text
        found = [c for c in _candidates(shape, text) if not echoes(c.text, asked)]
        if shape.kind == "where":
            found = _not_described(text, found)
        margins = kind_margins(shape.attribute, [c.text for c in found])
        fitting = [(m, c) for m, c in zip(margins, found, strict=True) if m > 0]
        if not fitting:
            continue
        best = max(fitting, key=lambda pair: pair[0])[1]
        # a phrase of the kind holding the best word is the fuller answer ("power metal")
        best = max((c for _, c in fitting if c.start <= best.start and best.end <= c.end),
                   key=lambda c: c.end - c.start)  # fmt: skip
        # the first of the things a definition lists is its primary one
        return Span(_with_kin(text, best, [c for _, c in fitting])[0].text, item.basis)
    return None


def _cued_place(
    question: str, shape: Shape, ranked: Sequence[Ranked], asked: set[str]
) -> Span | None:
    named = {w for n in names_in(question, skip_first=True) for w in content_words(n)}
    cues = asked - named - set(content_words(shape.attribute))
    if not cues:
        return None
    for item in ranked:
        text = item.claim.text
        cued = []
        for candidate in _candidates(shape, text):
            before = [m.group() for m in _WORD.finditer(text[: candidate.start])][-CUE_WORDS:]
            if not echoes(candidate.text, asked) and cues & set(content_words(" ".join(before))):
                cued.append(candidate)
        for candidate in _not_described(text, cued):
            return Span(candidate.text, item.basis)
    return None


def _not_described(text: str, found: list[_Candidate]) -> list[_Candidate]:
    """``found`` without the names an indefinite article introduces: "is an American
    actor" describes (a nationality, a kind), while a place is named bare or with
    "the" ("born in Gniezno", "the Bronx")."""
    return [c for c in found if not _INDEFINITE.search(text[: c.start])]


def _candidates(shape: Shape, text: str) -> list[_Candidate]:
    if shape.kind == "where":  # a place is named
        out, at = [], 0
        for name in names_in(text):
            start = text.find(name, at)
            if start >= 0:
                out.append(_Candidate(start, start + len(name), name))
                at = start + len(name)
        return out
    words = [
        _Candidate(m.start(), m.end(), m.group())
        for m in _WORD.finditer(text)
        if m.group().lower() not in STOP_WORDS and content_words(m.group())
    ]
    pairs = [
        _Candidate(a.start, b.end, text[a.start : b.end])
        for a, b in itertools.pairwise(words)
        # a phrase is one kind of word: "power metal", "New York", not "Polish sculptor"
        if text[a.end : b.start] == " " and a.text[0].isupper() == b.text[0].isupper()
    ]
    return words + pairs


def _with_kin(text: str, best: _Candidate, fitting: list[_Candidate]) -> list[_Candidate]:
    """``best`` with the candidates of its kind it is listed with ("X and Y", "X, Y")."""
    chosen = [best]
    grown = True
    while grown:
        grown = False
        left, right = chosen[0], chosen[-1]
        for candidate in fitting:
            if any(_overlaps(candidate, c) for c in chosen):
                continue
            if _JOINED.fullmatch(text[right.end : candidate.start]):
                chosen.append(candidate)
            elif _JOINED.fullmatch(text[candidate.end : left.start]):
                chosen.insert(0, candidate)
            else:
                continue
            grown = True
            break
    return chosen


def _overlaps(a: _Candidate, b: _Candidate) -> bool:
    return a.start < b.end and b.start < a.end
