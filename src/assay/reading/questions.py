"""What a question asks for: its kind (a date, a name, yes/no, a choice…) and its sides.

The answer must have the question's shape — a date for "when", a name for "who", yes or
no first for a yes/no question, one of the two named things for "which … A or B" — so
both the model step and the span extractor start from :func:`shape_of`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from assay.language.cues import english_cues
from assay.reading.names import AUXILIARIES as _AUXILIARIES
from assay.reading.names import names_in
from assay.reading.places import PLACES
from assay.reading.values import YEAR, dates_in, quantities_in
from assay.text import STOP_WORDS, content_words, raw_words

Kind = Literal["yesno", "choice", "when", "number", "who", "where", "how", "what"]

__all__ = [
    "Description",
    "Kind",
    "Shape",
    "described_by",
    "echoes",
    "fills_slot",
    "question_slot",
    "same_what",
    "shape_of",
    "states",
]

_WHEN = re.compile(r"^when\b|\b(?:what|which|in what|in which) (?:year|date|decade|century)\b")
_EVENT_BEFORE_FRAME = re.compile(
    r"\b([a-z]+) (?:(?:in|during|by|around|since|on) )?"
    r"(?:what|which) (?:year|date|decade|century)\b"
)
_FRAME_WORDS = frozenset(["year", "date", "decade", "century", "time"])
_NUMBER = re.compile(r"\bhow (?:many|much|long|old|far|tall|big|large|high)\b")
_WHERE = re.compile(
    r"^where\b|\b(?:what|which|in what|in which) (?:[a-z]+ )?(?:city|town|country|state|"
    r"county|place|region|province|continent|island|location)\b|\bwhere$"
)
"""A "where" inside the question ("the population of the city where X was born") opens a
relative clause; only a leading or final one ("… is based where?") asks for a place."""
_WHO = re.compile(r"^(?:who|whom|whose)\b|\b(?:what|which) (?:person|man|woman|actor|actress)\b")
_EARLIER = frozenset(
    [
        "first",
        "earlier",
        "earliest",
        "older",
        "oldest",
        "before",
        "sooner",
        "predates",
        "preceded",
    ]
)
_LATER = frozenset(
    [
        "later",
        "latest",
        "newer",
        "newest",
        "younger",
        "youngest",
        "last",
        "recent",
        "recently",
        "after",
    ]
)
_MORE = frozenset(
    [
        "more",
        "most",
        "larger",
        "largest",
        "bigger",
        "biggest",
        "higher",
        "highest",
        "longer",
        "longest",
        "taller",
        "tallest",
        "greater",
        "greatest",
        "heavier",
        "many",
    ]
)
_LESS = frozenset(
    [
        "less",
        "least",
        "fewer",
        "fewest",
        "smaller",
        "smallest",
        "shorter",
        "shortest",
        "lower",
        "lowest",
    ]
)


@dataclass(frozen=True)
class Shape:
    """The kind of answer a question wants, the things it names, and for a choice the
    direction that decides it (``earlier``, ``later``, ``more``, ``less`` or ``""``; for
    a "how tall/long/old" number, ``measure``: the answer keeps its unit)."""

    kind: Kind
    options: tuple[str, ...] = ()
    direction: str = ""
    event: str = ""
    """For "when": the word that says what happened ("formed" in "formed in what year?",
    "open" in "When did the plant open?"), or "" when the question does not say."""
    attribute: str = ""
    """The kind of thing asked for by name, when the question names it: "occupation" in
    "What is X's occupation?", "city" in "In what city was X born?"."""


def shape_of(question: str) -> Shape:
    """The shape of the answer ``question`` asks for (see :class:`Shape`)."""
    text = " ".join(question.split()).rstrip("?. ")
    # "X has an OBE. Does Y also have one?": the last sentence is the one that asks
    asking = re.split(r"(?<=\w\w[.!]) (?=[A-Z])", text)[-1]
    lowered = english_cues(asking).lower()  # another language's question words, in English
    first = lowered.split(" ", 1)[0] if lowered else ""
    options = _choice_options(text)
    if options and first not in _AUXILIARIES:
        return Shape("choice", options, _direction(lowered))
    if first in _AUXILIARIES and not _WHEN.search(lowered):
        # ("Do Tarn Nights … is a remake of Harbour Lights, released in which year?" names
        # a film that starts with "Do": it asks for a year, not yes or no)
        sides = options or _sides(asking)
        comparative = _direction(lowered) if " than " in f" {lowered} " else ""
        return Shape("yesno", sides, comparative)  # "Is X older than Y?" compares
    if _WHEN.search(lowered):
        return Shape("when", event=_event(asking))
    if _NUMBER.search(lowered):
        counted = re.search(r"\bhow (?:many|much)\b", lowered)
        return Shape("number", direction="" if counted else "measure")
    if re.match(r"(?:how|why)\b", lowered) or not _asks(question):
        return Shape("how")  # an explanation or a topic: the sentence that gives it
    if _WHO.search(lowered):
        return Shape("who")
    attribute = _attribute(lowered)
    if _WHERE.search(lowered):
        return Shape("where", attribute=attribute)
    return Shape("what", attribute=attribute)


def asked_values(shape: Shape, text: str) -> list[tuple[int, str]]:
    """The values (offset, text) of the kind that answers or decides ``shape`` which
    ``text`` states: dates for "when" and for a choice by earlier / later, quantities for
    "how many / how tall" and for a choice by more / less; [] for other shapes."""
    if shape.kind == "when" or shape.direction in ("earlier", "later"):
        return dates_in(text)
    if shape.kind == "number" or shape.direction in ("more", "less"):
        return quantities_in(text, with_unit=shape.direction == "measure")
    return []


_ATTRIBUTE = (
    re.compile(r"^what (?:is|was|are|were) (?:the )?.+?['’]s? ([a-z]+)$"),  # X's occupation
    re.compile(r"^what (?:is|was|are|were) the ([a-z]+) of\b"),  # the genre of X
    re.compile(r"^(?:in |of |from )?(?:what|which) ([a-z]+) (?:is|was|are|were|does|did)\b"),
)


def _attribute(lowered: str) -> str:
    """The noun naming what is asked ("occupation", "city"), or ""."""
    for pattern in _ATTRIBUTE:
        found = pattern.search(lowered)
        if found and content_words(found.group(1)):
            return found.group(1)
    return ""


def _event(asking: str) -> str:
    """The word of a "when" question that names the event: the one before "in what year"
    ("formed in what year"), else the question's last word when it is not part of a name
    ("When was the club founded?")."""
    before = _EVENT_BEFORE_FRAME.search(asking.lower())
    if before and content_words(before.group(1)):
        return before.group(1)
    words = raw_words(asking)
    last = words[-1] if words else ""
    return last if last.islower() and content_words(last) and last not in _FRAME_WORDS else ""


def _sides(asking: str) -> tuple[str, ...]:
    """The things a yes/no question asks about: the two names joined by "and" when there
    are ("Are both magazines, X and Y, British?" → X, Y), else every name it gives."""
    names = names_in(asking, skip_first=True)
    head, _, tail = asking.partition(" and ")
    if tail:
        before, after = names_in(head, skip_first=True), names_in(tail)
        if before and after:
            return (before[-1], after[0])
    return tuple(names)


def _asks(question: str) -> bool:
    """Whether the text is a question at all (not a topic such as "widget cache")."""
    return (
        "?" in question
        or bool(
            re.search(r"\b(?:what|which|who|whom|whose|when|where|how|why)\b", question.lower())
        )
        or question.split(" ", 1)[0].lower() in _AUXILIARIES
    )


def _choice_options(text: str) -> tuple[str, ...]:
    """The two things a "which … A or B" question names, if it names two."""
    if " or " not in text:
        return ()
    head, _, tail = text.rpartition(" or ")
    # after a comma the first word starts the option, not the question: "…, Two Vell
    # Radio or …" keeps its "Two"
    before = names_in(head.rsplit(",", 1)[-1], skip_first="," not in head)
    after = names_in(tail)
    if before and after:
        return (before[-1], after[0])
    # lower-case options ("which is older, tea or coffee"): the words around " or "
    left, right = raw_words(head)[-1:], raw_words(tail)[:1]
    if left and right and content_words(left[0]) and content_words(right[0]):
        return (left[0], right[0])
    return ()


def _direction(lowered: str) -> str:
    tokens = set(raw_words(lowered))
    for words, direction in (
        (_EARLIER, "earlier"),
        (_LATER, "later"),
        (_MORE, "more"),
        (_LESS, "less"),
    ):
        if tokens & words:
            return direction
    # "Which was founded, A or B?" asks for the earlier; "founded later" is caught above
    return "earlier" if "founded" in tokens else ""


_WH_WORDS = frozenset(["what", "which", "who", "whom", "where"])
_SLOT_WORDS = 2  # content words read on each side of the question's "what"


def question_slot(question: str) -> set[str]:
    """The words right before and right after the question's "what"/"who" ("starred" and
    "seven years" in "… starred in what for seven years?"). A span's neighbours may repeat
    them on either side: "who wrote a song" is filled by "a song written by X"."""
    tokens = raw_words(question)
    at = next((i for i, t in enumerate(tokens) if t.lower() in _WH_WORDS), None)
    if at is None:
        return set()
    before = [s for t in tokens[max(0, at - 3) : at] for s in content_words(t)]
    after = [s for t in tokens[at + 1 : at + 4] for s in content_words(t)]
    return set(before[-_SLOT_WORDS:]) | set(after[:_SLOT_WORDS])


_WHICH = re.compile(r"\b(?:which|what)(?: (?:is|was|are|were))?(?: (?:an?|the))?\b(.*)", re.I)


@dataclass(frozen=True)
class Description:
    """What a "which …"/"what …" question asks for: the noun phrase right after it
    ("Norvian folk band") and all the words that follow ("… from Osricby")."""

    phrase: frozenset[str]
    words: frozenset[str]


def described_by(question: str) -> Description:
    """The :class:`Description` of what ``question`` asks for (empty for no "which"/"what")."""
    match = _WHICH.search(question)
    if match is None:
        return Description(frozenset(), frozenset())
    phrase: list[str] = []
    for word in raw_words(match.group(1)):
        if word.lower() in STOP_WORDS - {"and"}:
            break
        phrase.append(word)
    return Description(
        frozenset(content_words(" ".join(phrase))), frozenset(content_words(match.group(1)))
    )


def same_what(question: str) -> str:
    """What "the same …" asks for ("state" in "in the same state?"), or "" if it does not."""
    tokens = raw_words(question.lower())
    if "same" not in tokens[:-1]:
        return ""
    word = tokens[tokens.index("same") + 1]
    return word[:-1] if word.endswith("s") and word[:-1] in PLACES else word


_SLOT_WINDOW = 4  # tokens read on each side of a candidate span


def fills_slot(slot: set[str] | None, text: str, start: int, end: int) -> int:
    """1, plus 1 for each side of ``text[start:end]`` whose neighbours repeat the words around
    the question's slot ("starred in the sitcom "Tarn Nights" for seven years": both)."""
    if slot is None:
        return 1
    before = {s for t in raw_words(text[:start])[-_SLOT_WINDOW:] for s in content_words(t)}
    after = {s for t in raw_words(text[end:])[:_SLOT_WINDOW] for s in content_words(t)}
    return 1 + bool(slot & before) + bool(slot & after)


def echoes(span: str, asked: set[str]) -> bool:
    """Whether a span only repeats the question (its words are all in the question)."""
    words = content_words(span)
    return not words or all(w in asked for w in words)


def states(question: str, span: str) -> bool:
    """Whether the question itself states ``span``, or the year of the date it is."""
    years = YEAR.findall(span)
    wanted = years[-1:] if years and not YEAR.fullmatch(span) else [span]
    return any(re.search(rf"\b{re.escape(w)}\b", question) for w in wanted)
