"""Code mode's concepts: what a question names, and how code spells it.

A question says "per-request retry policy"; the code says ``per_request``, ``backoff``,
``attempts``. So each concept of the question (a phrase of its lexicon, a hyphenated
compound, or a content word) gets its code spellings: the words joined as code joins them
(``retry_policy``, ``retry-policy``, ``retrypolicy``, which a case-blind search also finds
as ``retryPolicy`` and ``RetryPolicy``), a word's stem (``validated`` → ``validat``, which
finds ``validate`` and ``validating``), and the synonyms of ``data/code_lexicon.json``
(``retry`` → ``backoff``, ``attempts``), composed into compounds (``per-request`` →
``per_call``). The lexicon holds terms, never questions: the derivation is the same for
every question.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import cache
from importlib import resources

from assay.text import STOP_WORDS

CONCEPT_METHOD = "code-concepts-v1"
"""The relevance method of a code file's sentence: the share of the question's concepts
it speaks of, in any of their spellings (``concept_share``)."""
MAX_CONCEPTS = 4
"""Concepts grepped per question (each grep is one turn of the loop)."""
_MAX_LEXICON_WORDS = 3
_TOKEN = re.compile(r"\w[\w.'’-]*\w|\w|[^\w\s]")  # "setup.cfg", "per-request" stay whole
_MIN_STEM = 5  # a shorter stem ("pag" of "page") matches too much as a substring


@dataclass(frozen=True)
class Concept:
    """One idea of the question and the strings code would spell it with."""

    name: str
    spellings: tuple[str, ...]
    loose: tuple[str, ...] = ()
    """A compound's head word and its synonyms (``host``, ``domain``): they say a
    sentence is about the concept, though too common to grep for."""
    weight: float = 1.0
    """What matching it says: a participle ("validated") is the question's predicate, half
    as telling as the things it names."""

    def said_in(self, text: str) -> bool:
        lowered = text.lower()
        return any(s in lowered for s in (*self.spellings, *self.loose))

    @property
    def pattern(self) -> str:
        """The grep pattern: every spelling, ``|``-separated (grepWorkspace's alternation)."""
        return "|".join(self.spellings)


@cache
def _lexicon() -> tuple[dict[str, tuple[str, ...]], frozenset[str]]:
    data = json.loads(
        resources.files("assay.protocols.research").joinpath("data/code_lexicon.json").read_text()
    )
    synonyms = {
        " ".join(singular(w) for w in str(k).split()): tuple(str(v) for v in vs)
        for k, vs in data["synonyms"].items()
    }
    return synonyms, frozenset(str(w) for w in data["generic"])


def singular(word: str) -> str:
    """``limits`` → ``limit``, ``policies`` → ``policy`` (the lexicon's keys are singular)."""
    lowered = word.lower()
    if lowered.endswith("ies") and len(lowered) > 4:
        return lowered[:-3] + "y"
    if lowered.endswith("s") and not lowered.endswith(("ss", "us", "is")) and len(lowered) > 3:
        return lowered[:-1]
    return lowered


def code_stem(word: str) -> str:
    """The part of ``word`` every inflection shares, kept long enough to search for:
    ``validated`` → ``validat``, ``retries`` → ``retry``, ``page`` stays ``page``."""
    lowered = singular(word)
    for suffix in ("ing", "ed", "es", "e", "y"):
        if lowered.endswith(suffix) and len(lowered) - len(suffix) >= _MIN_STEM:
            return lowered[: -len(suffix)]
    return lowered


def _forms(word: str) -> list[str]:
    """A word's stem, singular and own form, less those another one finds as a substring
    (``validated`` → ``validat``; ``entries`` → ``entry``, ``entries``)."""
    base = word.split(".")[0] if "." in word else word  # robots.txt is also robots
    forms = list(dict.fromkeys([code_stem(base), singular(base), word.lower()]))
    return [f for f in forms if not any(o != f and o in f for o in forms)]


def joins(parts: list[str]) -> list[str]:
    """How code joins words: ``a b``, ``a_b``, ``a-b``, ``ab`` (the last finds ``aB``)."""
    lowered = [p.lower() for p in parts]
    if len(lowered) == 1:
        return lowered
    return [" ".join(lowered), "_".join(lowered), "-".join(lowered), "".join(lowered)]


def _units(question: str) -> list[list[str]]:
    """The question's content runs cut into units: a lexicon phrase (longest first), a
    hyphenated compound, or one word (a file name such as ``robots.txt`` is one word);
    possessives lose their ``'s``."""
    synonyms, generic = _lexicon()
    runs: list[list[str]] = [[]]
    for token in _TOKEN.findall(question):
        word = token.removesuffix("'s").removesuffix("’s")
        lowered = word.lower()
        if word[:1].isalnum() and ("-" in word or (lowered not in STOP_WORDS and len(word) > 1)):
            runs[-1].append(word)
        elif runs[-1]:
            runs.append([])
    units: list[list[str]] = []
    for run in runs:
        at = 0
        while at < len(run):
            for size in range(min(_MAX_LEXICON_WORDS, len(run) - at), 0, -1):
                phrase = " ".join(singular(w) for w in run[at : at + size])
                if size > 1 and phrase in synonyms:
                    units.append(run[at : at + size])
                    break
            else:
                size = 1
                word = run[at]
                if word.lower() not in generic and singular(word) not in generic:
                    units.append(word.split("-") if "-" in word else [word])
            at += size
    return units


def _spellings(unit: list[str]) -> list[str]:
    synonyms, _ = _lexicon()
    key = " ".join(singular(w.split(".")[0]) for w in unit)  # robots.txt: robots
    found = joins(unit) if len(unit) > 1 else _forms(unit[0])
    for synonym in synonyms.get(key, ()):
        found += joins(re.split(r"[ _-]", synonym))
    if len(unit) > 1:  # a compound's head in other words: per-request → per_call
        head = singular(unit[-1])
        for synonym in synonyms.get(head, ()):
            if " " not in synonym:
                found += joins([*unit[:-1], synonym])[1:3]
    return list(dict.fromkeys(s for s in found if s))


def _loose(unit: list[str]) -> tuple[str, ...]:
    if len(unit) == 1:
        return ()
    synonyms, _ = _lexicon()
    head = singular(unit[-1])
    return tuple(dict.fromkeys([head, *(s for s in synonyms.get(head, ()) if " " not in s)]))


def _weight(unit: list[str]) -> float:
    word = unit[0].lower()
    participle = len(unit) == 1 and word.endswith(("ed", "ing", "en")) and len(word) > 4
    return 0.5 if participle else 1.0


def concept_share(found: list[Concept], text: str) -> float:
    """The share of the concepts' weight ``text`` speaks of (0 to 1)."""
    total = sum(c.weight for c in found)
    return sum(c.weight for c in found if c.said_in(text)) / total if total else 0.0


def concepts(question: str) -> list[Concept]:
    """The question's concepts, phrases and compounds first (they say the most), at most
    ``MAX_CONCEPTS``, each with its code spellings."""
    units = _units(question)
    ranked = sorted(range(len(units)), key=lambda n: (len(units[n]) == 1, n))
    found: list[Concept] = []
    seen: set[str] = set()
    for n in ranked:
        unit = units[n]
        name = " ".join(w.lower() for w in unit)
        if name in seen:
            continue
        seen.add(name)
        found.append(Concept(name, tuple(_spellings(unit)), _loose(unit), _weight(unit)))
        if len(found) == MAX_CONCEPTS:
            break
    order = {c.name: n for n, c in enumerate(Concept(" ".join(u).lower(), ()) for u in units)}
    return sorted(found, key=lambda c: order.get(c.name, 0))


def code_question(question: str) -> str:
    """The question with its concepts' code spellings, which a code file's sentences use
    instead of the question's words ("… retry …" → "backoff", "attempts")."""
    spelled = [
        s for c in concepts(question) for s in c.spellings if s.lower() not in question.lower()
    ]
    return f"{question} (in code: {', '.join(dict.fromkeys(spelled))})" if spelled else question
