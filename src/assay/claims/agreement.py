"""Polarity and number agreement between a claim and a sentence.

Lexical overlap says a sentence talks about what the claim talks about; it cannot say
whether the sentence agrees. Two cheap signals flip a well-matching sentence into a
refutation: opposite polarity (a negation on one side only, or an antonym standing where
the claim's word stood) and a different number for the same quantity. Both lists are
small and general English: they are meant to catch the plain cases, and anything subtler
is left as NOT_ENOUGH_INFO rather than guessed.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from assay.claims.normalize import normalize_text, numbers_in
from assay.text import (
    NUMBER_WORDS,
    STOP_WORDS,
    is_content,
    phrase_tokens,
    stem,
    word_set,
)

NEGATIONS = word_set(
    "not no never neither nor none nothing nobody nowhere cannot without false untrue "
    "deny denies denied denying refute refutes refuted disprove disproved myth"
)
"""Words that reverse what a sentence asserts (``n't`` endings count too)."""

_UP = word_set("increase rise grow climb gain raise accelerate expand")
_DOWN = word_set("decrease decline fall drop reduce shrink lose diminish contract")
_DIRECTION = {stem(w): "up" for w in _UP} | {stem(w): "down" for w in _DOWN}
"""Verbs of change folded to a direction, so "rose" and "increased" agree."""

_PAIRS = (
    ("up", "down"), ("more", "less"), ("more", "fewer"), ("most", "least"), ("high", "low"),
    ("warm", "cool"), ("warm", "cold"), ("hot", "cold"), ("heat", "cool"), ("large", "small"),
    ("great", "small"), ("strong", "weak"), ("fast", "slow"), ("good", "bad"),
    ("positive", "negative"), ("true", "false"), ("accept", "reject"), ("agree", "disagree"),
    ("support", "oppose"), ("major", "minor"), ("majority", "minority"),
    ("maximum", "minimum"), ("include", "exclude"), ("success", "failure"), ("safe", "dangerous"),
    ("rich", "poor"), ("wet", "dry"), ("thick", "thin"), ("alive", "dead"),
    ("early", "late"), ("possible", "impossible"), ("confirm", "disprove"),
)  # fmt: skip
"""Antonyms in plain words; stemmed (and folded to a direction) when the module loads."""


_SYNONYM_GROUPS = (
    "cause lead drive result trigger produce",
    "human anthropogenic manmade",
    "world global worldwide planet",
    "warm heat",
    "big large huge",
    "die kill death dead",
    "begin start commence",
    "show demonstrate reveal indicate",
    "say state report claim",
    "predict forecast project",
    "rapid quick fast",
    "scientist researcher expert",
    "study research",
    "country nation",
    "percent percentage",
    "danger threat risk",
    "emission emit",
    "melt thaw",
    "ocean sea",
)
"""General English words that say the same thing in a claim and its evidence, each group
folded to its first word (after stemming) so a paraphrase covers the claim's words."""
_SYNONYMS = {stem(w): stem(group.split()[0]) for group in _SYNONYM_GROUPS for w in group.split()}


def canonical(word_stem: str) -> str:
    """A stem with verbs of change folded to their direction ("up"/"down") and general
    synonyms folded to one word ("anthropogenic" → "human")."""
    folded = _SYNONYMS.get(word_stem, word_stem)
    return _DIRECTION.get(folded, folded)


ANTONYMS: dict[str, frozenset[str]] = {}
for _a, _b in _PAIRS:
    _x, _y = canonical(stem(_a)), canonical(stem(_b))
    ANTONYMS[_x] = ANTONYMS.get(_x, frozenset()) | {_y}
    ANTONYMS[_y] = ANTONYMS.get(_y, frozenset()) | {_x}


def is_negation(word: str) -> bool:
    lowered = word.lower().replace("’", "'")
    return lowered in NEGATIONS or lowered.endswith("n't")


def negation_count(text: str, focus: set[str] | None = None) -> int:
    """How many negation cues ``text`` holds (``not``, ``no``, ``n't``, ``without``, …).

    With ``focus`` (canonical stems of the words both sides share), a cue counts only when
    one of those words follows it within the same clause: a "not" about something the other
    side never mentions says nothing about whether the two agree.
    """
    tokens = phrase_tokens(text)
    prefixes = {f[:5] for f in focus or () if len(f) >= 5}
    count = 0
    for index, token in enumerate(tokens):
        if not is_negation(token):
            continue
        following = tokens[index + 1 : index + 1 + _SCOPE]
        if focus is None or _negates(following, focus, prefixes):
            count += 1
    return count


_SCOPE = 6
_CLAUSE_END = frozenset(',;:.!?()"“”')


def _negates(following: list[str], focus: set[str], prefixes: set[str]) -> bool:
    for token in following:
        if token in _CLAUSE_END:
            return False
        word = canonical(stem(token))
        if word in focus or (len(word) >= 5 and word[:5] in prefixes):
            return True
    return False


def antonym_flips(claim_stems: set[str], sentence_stems: set[str]) -> set[str]:
    """Claim stems absent from the sentence whose antonym the sentence uses instead."""
    return {
        c for c in claim_stems - sentence_stems if ANTONYMS.get(c, frozenset()) & sentence_stems
    }


_QUANTITY = re.compile(r"[-+]?\d[\d,]*(?:\.\d+)?%?|[^\W\d_]+")
_SCALES = {"hundred": 1e2, "thousand": 1e3, "million": 1e6, "billion": 1e9, "trillion": 1e12}


@dataclass(frozen=True)
class Quantity:
    """A number as it stands in text, with the word that says what it counts."""

    value: float
    unit: str
    year: bool
    before: frozenset[str] = frozenset()
    """Stems of the content words just before the number: what it is a number of."""


def quantities(text: str) -> list[Quantity]:
    """The numbers of ``text`` (digits or words, scaled by "million" etc.) with their unit:
    ``%``, or the stem of the next content word ("3 million people" → 3e6, "person")."""
    tokens = [t.lower() for t in _QUANTITY.findall(normalize_text(text))]
    found: list[Quantity] = []
    index = 0
    while index < len(tokens):
        token, value = tokens[index], _value(tokens[index])
        before = frozenset(
            stem(t)
            for t in tokens[max(0, index - 4) : index]
            if _value(t) is None and is_content(t)
        )
        index += 1
        if value is None:
            continue
        while index < len(tokens) and tokens[index] in _SCALES:
            value *= _SCALES[tokens[index]]
            index += 1
        unit = "%" if token.endswith("%") else _unit_after(tokens[index : index + 4])
        year = unit != "%" and token.isdigit() and len(token) == 4 and 1800 <= value <= 2100
        found.append(Quantity(value, unit, year, before))
    return found


def _value(token: str) -> float | None:
    if token in NUMBER_WORDS:
        return float(NUMBER_WORDS[token])
    if not token[0].isdigit() and token[0] not in "+-":
        return None
    try:
        return float(next(iter(numbers_in(token)), ""))
    except ValueError:
        return None


def _unit_after(following: list[str]) -> str:
    for token in following:
        if token in ("percent", "cent"):
            return "%"
        if not token[0].isdigit() and token not in STOP_WORDS and token not in NUMBER_WORDS:
            return stem(token)
    return ""


@dataclass(frozen=True)
class NumberAgreement:
    """How the claim's numbers fare in a sentence."""

    agree: bool
    """The claim has numbers and every one of them appears in the sentence."""
    conflict: bool
    """The sentence gives a different value for a quantity the claim states."""
    missing: bool
    """Some claim number is absent and nothing in the sentence contradicts it."""


def compare_numbers(claim: str, sentence: str) -> NumberAgreement:
    ours, theirs = quantities(claim), quantities(sentence)
    if not ours:
        return NumberAgreement(False, False, False)
    absent = [q for q in ours if not any(math.isclose(q.value, t.value) for t in theirs)]
    conflict = any(
        q.unit and not q.year and any(_same_quantity(q, t) for t in theirs) for q in absent
    )
    return NumberAgreement(not absent, conflict, bool(absent) and not conflict)


def _same_quantity(ours: Quantity, theirs: Quantity) -> bool:
    """Same unit, and the same thing counted: a content word before both numbers agrees
    ("rose 1.5 degrees" / "rose 0.8 degrees"), or neither has words before it."""
    if ours.unit != theirs.unit or theirs.year:
        return False
    return bool(ours.before & theirs.before) or not (ours.before or theirs.before)
