"""Sub-questions: a question split into the look-ups a person would make, without a model.

"Which opened first, the Tarn Valley tidal plant or the Halvorsen Lighthouse?" is two
look-ups and a comparison: "When was Tarn Valley opened?", "When was Halvorsen Lighthouse
opened?". "Are Velmar and Kessler both towns?" is "What is Velmar?" and "What is Kessler?".
"Which river flows past the town that Lars Brekke was born in?" hides a first look-up in
its relative clause: "What is the town that Lars Brekke was born in?". A topic that is no question
("Velmar honeybee winters") is what is known about it and how strong the evidence is.

Each sub-question carries the queries a person would type for it: its names and key
words in the order asked, or the sub-question itself. Never the question's words with a
fixed suffix ("… criticism") or a quoted fragment of it ("\"founded first\""): a search
engine reads those literally, and they find pages about criticism or about the phrase.
The words that compare ("first", "taller") and what they measure ("height") come from
``data/question_lexicon.json``.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Literal

from assay.engines.extractive.asking import clip, read_question
from assay.engines.extractive.keywords import key_phrase
from assay.language import query_word
from assay.reading.questions import shape_of
from assay.text import STOP_WORDS, content_words, raw_words, word_set, words

Angle = Literal["asked", "side", "bridge", "topic"]
_QUESTION_WORDS = word_set(
    "what who whom whose when where why how which is are was were do does did can could "
    "should would will has have"
)
_RELATIVE = re.compile(
    r"\b(?:the|a|an)\s+((?:[a-z]+\s+){0,2}?)(who|that|which|whose|where)\s+([^,?;]+)",
)


@dataclass(frozen=True)
class SubQuestion:
    """One look-up: the question a reader sees as a heading, the queries for it, and the
    thing it is about (one side of a comparison, "" for the question as asked)."""

    text: str
    queries: tuple[str, ...]
    angle: Angle
    about: str = ""


@dataclass(frozen=True)
class _Lexicon:
    measures: dict[str, str]
    participles: frozenset[str]
    comparing: frozenset[str]


@cache
def _lexicon() -> _Lexicon:
    data = json.loads(
        resources.files("assay.engines.extractive")
        .joinpath("data/question_lexicon.json")
        .read_text()
    )
    return _Lexicon(
        {str(k): str(v) for k, v in data["measures"].items()},
        frozenset(str(w) for w in data["participles"]),
        frozenset(str(w) for w in data["comparing"]),
    )


def is_participle(word: str) -> bool:
    """``founded``, ``born``, ``written``: a word that says what happened to something."""
    lowered = word.lower()
    return lowered in _lexicon().participles or (
        len(lowered) > 4 and lowered.endswith(("ed", "en")) and lowered not in STOP_WORDS
    )


def _unique(queries: list[str]) -> tuple[str, ...]:
    found: dict[str, str] = {}
    for query in queries:
        text = clip(" ".join(query.split()).strip(" ?"))
        if text and text.casefold() not in found:
            found[text.casefold()] = text
    return tuple(found.values())


def _predicate(asked: str, named: str) -> list[str]:
    """The asked words that are neither comparing words nor part of ``named``."""
    skip = _lexicon().comparing | {w.lower() for w in raw_words(named)}
    return [w for w in raw_words(asked) if w.lower() not in skip]


def _side(option: str, question: str, direction: str) -> SubQuestion:
    """The look-up for one side of a comparison or of a yes/no question about two things."""
    shape = read_question(question)
    predicate = _predicate(shape.asked, option)
    lexicon = _lexicon()
    measure = next(
        (lexicon.measures[w.lower()] for w in raw_words(question) if w.lower() in lexicon.measures),
        "",
    )
    participle = next((w for w in reversed(predicate) if is_participle(w)), "")
    if direction in ("earlier", "later") or (participle and not measure):
        if participle:
            text = f"When was {option} {participle}?"
            queries = [f"{option} {participle}", f"when was {option} {participle}", option]
        else:
            text = f"How old is {option}?"
            queries = [f"{option} age", f"how old is {option}", option]
    elif measure:
        rest = " ".join(w for w in predicate if w.lower() != measure)
        text = f"What is the {measure} of {option}?"
        queries = [f"{option} {measure}", f"{option} {rest}", option]
    else:
        text = f"What is {option}?"
        queries = [f"{option} {' '.join(predicate)}", option, f"what is {option}"]
    return SubQuestion(text, _unique(queries), "side", option)


def _bridge(question: str) -> SubQuestion | None:
    """The look-up a relative clause hides ("the <noun> that <clause>"), when the clause
    names something (a look-up needs a name to look up)."""
    found = _RELATIVE.search(question)
    if found is None:
        return None
    noun, relative, clause = found.group(1).strip(), found.group(2), found.group(3).strip()
    names = read_question(clause).entities
    if not names or len(raw_words(clause)) < 2:
        return None
    opens_with_verb = (
        not raw_words(clause)[0][:1].isupper() and raw_words(clause)[0].lower() not in STOP_WORDS
    )
    if relative in ("who", "whose"):
        text = f"Who {clause}?"
    elif opens_with_verb:  # "the <noun> that <verb> …" → "Which <noun> <verb> …?"
        text = f"Which {noun or 'one'} {clause}?"
    else:  # a clause with its own subject → "What is the <noun> that <clause>?"
        text = f"What is the {noun or 'one'} {relative} {clause}?"
    words = [w for w in raw_words(clause) if content_words(w)]
    named = {w.lower() for n in names for w in raw_words(n)}
    rest = " ".join(w for w in words if w.lower() not in named)
    queries = [f"{' '.join(names)} {rest}", text[0].lower() + text[1:], " ".join(names)]
    return SubQuestion(text, _unique(queries), "bridge", names[0])


def _asked_queries(question: str) -> list[str]:
    """The question as typed, then its names with its other key words."""
    shape = read_question(question)
    key = " ".join(w for w in raw_words(shape.text) if content_words(w))
    names = " ".join(shape.entities)
    rest = " ".join(w for w in raw_words(shape.asked) if w.lower() not in _lexicon().comparing)
    return [question, f"{names} {rest}" if names else key, key]


def sub_questions(topic: str) -> list[SubQuestion]:
    """The question as asked first, then one look-up per side of a comparison or of a
    yes/no question about two things, or the look-up its relative clause hides. A topic
    that is not a question: what is known about it, and how strong the evidence is."""
    text = " ".join(topic.split())
    shape = shape_of(text)
    read = read_question(text)
    if not read.is_question and words(text)[:1] and words(text)[0] not in _QUESTION_WORDS:
        subject = _as_subject(text)
        known = f"What is known about {subject}?"
        evidence = f"How strong is the evidence on {subject}, and why do sources disagree?"
        key = key_phrase(text)
        return [
            SubQuestion(known, _unique([text, key, *noun_phrases(text)]), "asked"),
            # the words in the run's language (assay.language): "Belege" for a German run
            SubQuestion(
                evidence,
                _unique([f"{key} {query_word('evidence')}", f"{key} {query_word('disputed')}"]),
                "topic",
            ),
        ]
    asked = text.rstrip("?.! ") + "?"
    found = [SubQuestion(asked, _unique(_asked_queries(asked)), "asked")]
    if shape.kind in ("choice", "yesno") and len(shape.options) >= 2:
        # an option cut short by the question's reading ("Moons Press" of "Two Moons
        # Press", whose "Two" reads as a number) is the noun phrase that contains it
        phrases = noun_phrases(text)  # "the Brenna signal tower", not "Brenna"
        options = [next((e for e in phrases if o in e), o) for o in shape.options[:2]]
        found += [_side(option, text, shape.direction) for option in options]
    else:
        bridge = _bridge(text)
        found += [bridge] if bridge is not None else []
    return found


NOUN_WORDS = 2
"""Lower-case words a name takes as the noun it modifies ("Tarn Valley tidal plant")."""


def noun_phrases(text: str) -> list[str]:
    """The text's names, each a phrase a person would search: a name takes the noun it
    modifies ("Danish" in "Danish and American publishing houses" is "Danish publishing
    houses"; "Tarn Valley tidal plant"), so a modifier never stands alone as a query."""
    tokens = raw_words(text)
    found = []
    for entity in read_question(text).entities:
        last = entity.split()[-1]
        if last not in tokens:
            found.append(entity)
            continue
        at = tokens.index(last) + 1
        while at < len(tokens) and (
            tokens[at][:1].isupper() or tokens[at].lower() in ("and", "or")
        ):
            at += 1  # the other modifiers of the same noun
        noun: list[str] = []
        while (
            at < len(tokens) and len(noun) < NOUN_WORDS and tokens[at][:1].islower()
            and tokens[at].lower() not in STOP_WORDS and not is_participle(tokens[at])
        ):  # fmt: skip
            noun.append(tokens[at])
            at += 1
        found.append(f"{entity} {' '.join(noun)}" if noun else entity)
    return found


def _as_subject(topic: str) -> str:
    """The topic as the object of a question: trailing punctuation dropped, the first
    letter lower-cased unless the first word looks like a name or acronym."""
    topic = topic.rstrip(".!?;: ")
    first = topic.split(" ", 1)[0]
    if len(first) > 1 and first[1:].islower() and first.lower() in STOP_WORDS:
        return topic[0].lower() + topic[1:]
    return topic
