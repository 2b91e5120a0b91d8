"""Answers without a model: the span of a relevant claim that has the question's shape.

A "when" question is answered with a date, "how many" with a number, "how" or "why" with
the claim that explains, "who", "where" and "what" with a name that the question does not
already contain (yes/no questions and "which … A or B" choices: comparisons.py).
Among a claim's candidate spans the one nearest the question's own words wins (in
"… started by Mara Quist" the name follows "started"), weighed by how relevant the
claim is; a claim that defines its subject as the question describes what it asks for
("X is an American television and movie actor" for "which television and movie actor …?")
names the answer with that subject. Nothing is guessed: when no relevant claim has such a
span there is no answer.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from assay.answers.ranking import Ranked, fitted
from assay.reading.names import name_words, names_at, subject
from assay.reading.questions import (
    Description,
    Shape,
    asked_values,
    described_by,
    echoes,
    fills_slot,
    question_slot,
    states,
)
from assay.reading.values import YEAR, dated_subject, event_key
from assay.text import content_words, stem

_REGION = re.compile(r", [A-Z][a-z]+(?: [A-Z][a-z]+)?\b")
_COUNTING = {stem(w) for w in ("many", "much", "time", "number", "amount", "total")}
CANDIDATE_CLAIMS = 6  # how many of the best ranked claims are read for a span
_DEFINITION_CLAIMS = 10  # a claim defining its subject as asked is read from further down
_NEAR = 60  # characters around a span whose question words vouch for it


@dataclass(frozen=True)
class Span:
    """An answer and the claims it was taken from."""

    text: str
    claim_ids: tuple[str, ...]


def best_span(question: str, shape: Shape, ranked: Sequence[Ranked]) -> Span | None:
    asked = set(content_words(question))
    # the words that say what is asked ("founded", "father"), not the names it gives
    asking = asked - name_words(question)
    # a bridge (the subject a two-claim chain passes through) leads to the answer
    bridges = {subject(r.claim.text) for r in ranked[:CANDIDATE_CLAIMS] if len(r.basis) > 1}
    best: tuple[float, str, tuple[str, ...]] | None = None
    described = described_by(question) if shape.kind in ("who", "what", "where") else None
    definitions = {
        item.claim.id: _defined_subject(item.claim.text, described)
        for item in ranked[:_DEFINITION_CLAIMS]
        if described is not None
    }
    candidates = [
        item
        for index, item in enumerate(ranked)
        if index < CANDIDATE_CLAIMS or definitions.get(item.claim.id, ("", 0))[0]
    ]
    scale = fitted("distance_scale")
    slot = question_slot(question) if shape.kind in ("who", "what", "where") else None
    for item in candidates:
        text = item.claim.text
        defined, shared = definitions.get(item.claim.id, ("", 0))
        anchors = [m.start() for m in word_matches(text) if _stemmed(m.group()) in asked]
        if shape.kind in ("when", "number") and not _speaks_of(shape, asking, text, asked):
            # a date or number answers only if its claim speaks of what is asked: for
            # "when did the plant open?", "a fish ladder was added in 2019" is no answer
            continue
        for start, span in _candidates(shape, text):
            bridge = span in bridges and span != defined  # defined as asked: the answer
            if shape.kind in ("who", "where", "what") and (echoes(span, asked) or bridge):
                continue
            if shape.kind in ("when", "number") and states(question, span):
                continue  # "… is a 2016 film, a remake of a film released in which year?"
            outside = [a for a in anchors if not start <= a < start + len(span)]
            distance = min((abs(start - a) for a in outside), default=len(text))
            # "X is an American company that designs …" for "What is an American company
            # that designs …?": X is what is asked for, the surer the more words it shares
            bonus = 1.0 + shared if start == 0 and span == defined else 1.0
            if shape.kind == "number" and not shape.direction and YEAR.fullmatch(span):
                continue  # "how many times": "the 1939 All-Star Game" counts nothing
            near = {
                _stemmed(m.group())
                for m in word_matches(text)
                if abs(m.start() - start) <= _NEAR and not start <= m.start() < start + len(span)
            } & asking
            # a subject defined as asked is the slot's filler, whatever stands around it
            fills = (
                _BOTH_SIDES if span == defined else fills_slot(slot, text, start, start + len(span))
            )
            score = item.score * bonus * (1 + len(near)) * fills / (1 + distance / scale)
            if best is None or score > best[0]:
                best = (score, span, item.basis)
    return Span(best[1], best[2]) if best else None


_DEFINITION = re.compile(r" (?:is|was|are|were) (?:an?|the) (.+)")
_DESCRIPTOR_WORDS = 3  # "Canadian actress known for …": a class and two of its features


_BOTH_SIDES = 3  # what fills_slot gives a span whose neighbours repeat both sides


def _defined_subject(text: str, described: Description) -> tuple[str, int]:
    """The subject of a claim that defines it as the question's noun phrase ("Ada
    Vell (born 1947) is an American television and movie actor"), with how many of the
    question's words the definition shares; ("", 0) when it does not define it so."""
    name = subject(text)
    definition = _DEFINITION.search(text)
    if not name or not described.phrase or definition is None:
        return "", 0
    defining = set(content_words(definition.group(1)))
    in_phrase = len(described.phrase & defining)
    shared = len(described.words & defining)
    if in_phrase < min(2, len(described.phrase)) or shared < _DESCRIPTOR_WORDS:
        return "", 0
    return name, shared


def _speaks_of(shape: Shape, asking: set[str], text: str, asked: set[str]) -> bool:
    """Whether a claim speaks of what a "when" or "how many" question asks: it names the
    question's event or a word for the same event ("formed" for "founded"), or dates its
    subject outright ("Orange Creeps is a 1998 book", a subject the question names); without
    an event, it holds half the words that say what is asked, counting words ("many",
    "times") aside: "… was the Premier of Tarn Province twice" for "how many times was
    the politician premier?"."""
    stems = set(content_words(text))
    if shape.event:
        event = event_key(stem(shape.event))
        # the subject dated must be one the question names, not "Harbour Lights is a 2003 film"
        named = bool(set(content_words(dated_subject(text))) & asked)
        return event in {event_key(s) for s in stems} or named
    wanted = asking - _COUNTING
    return len(wanted & stems) * 2 >= len(wanted)


def _candidates(shape: Shape, text: str) -> list[tuple[int, str]]:
    if shape.kind in ("when", "number"):
        return asked_values(shape, text)
    found = []
    for at, name in names_at(text):
        region = _REGION.match(text, at + len(name)) if shape.kind == "where" else None
        found.append((at, name + (region.group() if region else "")))  # "Osricby, Vellshire"
    return found


_TOKEN = re.compile(r"[^\W_]+")


def word_matches(text: str) -> list[re.Match[str]]:
    return list(_TOKEN.finditer(text))


def _stemmed(word: str) -> str:
    stems = content_words(word)
    return stems[0] if stems else ""
