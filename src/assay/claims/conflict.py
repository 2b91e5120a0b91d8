"""Contradictions by subject and slot: when two statements really disagree.

Two statements conflict when they speak of the same subject and fill the same attribute
(a date, a place, a number, a name) with incompatible values — "born 30 July 1970 in
London" and "born 12 March 1975 in Toronto", said of one person. They never conflict
when their subjects differ: "15 people died in the 2012 Tarn Valley flood" and
"484 people were killed in the May 1896 Tarn Valley flood" are about two events.

Without a model, a subject is read from names (capitalised spans of the statement and of
its context, usually the title of the page it comes from, which resolves "It was
established in 1991") and from the years that qualify a noun ("the 2012 outbreak"); a
slot is a value with the relation word in front of it ("born … 1970", "located in
Berlin", "founded by Ada"). The reading is deliberately strict: a pair it cannot place
under one subject and one attribute is not a conflict.

A statement that opens with a name is about that name (its head): pages written from one
template ("Tessel is a village in the Brenna range", "The Zorbel Z 32 was a ferry built
in Norway") share every other name and slot, and only the head tells them apart. Two
statements whose heads differ, neither naming the other's nor giving it in full on the
page it titles ("Robert Alan Vell" on "Rob Vell"), are about different subjects whatever
else they share. A lone capitalised word opening a sentence counts as a head
only when the page title or the statement itself names it again ("Engineers finished the
bridge" is about no "Engineers"); otherwise it is a guess, which sets the statement apart
from another's head only when neither the statement nor its page title names that head. A
pronoun opening a statement ("It was founded in 1991") takes the head of the page title.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

from assay.claims.agreement import canonical, quantities
from assay.reading.names import in_full, same_name
from assay.text import STOP_WORDS, is_content, stem, word_set

SlotKind = Literal["date", "place", "number", "name"]

MONTHS = word_set(
    "january february march april may june july august september october november december "
    "jan feb mar apr jun jul aug sep sept oct nov dec"
)
_TOKEN = re.compile(r"[^\W_]+(?:['’.-][^\W_]+)*|[^\w\s]")
_INITIAL_DOT = re.compile(r"(?<=[a-z] [A-Z])\.(?= [A-Z][a-z])")
"""The dot of a middle initial ("Ada L. Vell"): a name goes on over it, where a sentence's
last dot would end it."""
_PLACE_WORDS = word_set("in at near")
_NAME_WORDS = word_set("by named called")
_DETERMINERS = word_set("the a an")
_PRONOUNS = word_set("it its he his she her they their")
_RELATION_SPAN = 4
"""How far before a value its relation word is looked for ("born on 30 July 1970")."""
_SYNONYMS = {
    "kill": "die", "dead": "die", "death": "die", "perish": "die", "found": "establish",
    "creat": "establish", "start": "establish", "launch": "establish", "open": "establish",
    "situat": "locat", "lie": "locat", "base": "locat", "birth": "born",
}  # fmt: skip


def relation_word(word: str) -> str:
    """A relation's key: stemmed, synonyms folded ("killed" → "die", "founded" →
    "establish"), verbs of change folded to a direction."""
    base = canonical(stem(word))
    return _SYNONYMS.get(base, base)


@dataclass(frozen=True)
class Slot:
    """One attribute value a statement asserts, with the relation words before it."""

    kind: SlotKind
    value: str
    relation: frozenset[str]
    number: float | None = None
    unit: str = ""


@dataclass(frozen=True)
class Reading:
    """What a statement is about (names, qualifying years) and what it asserts (slots)."""

    names: tuple[tuple[str, ...], ...]
    years: frozenset[str]
    slots: tuple[Slot, ...]
    words: frozenset[str]
    head: tuple[str, ...] = ()
    """The name the statement opens with (or, opening with a pronoun, the title's); ()
    when it opens with neither."""
    mentions: tuple[tuple[str, ...], ...] = ()
    """Every name the statement itself gives (its head, names, places): not the title's."""
    guess: tuple[str, ...] = ()
    """A lone capitalised word opening the statement that nothing confirms as a name
    ("Tessel is a village", but also "Engineers finished the bridge")."""
    titled: tuple[str, ...] = ()
    """The name the statement's page title (its context) opens with."""


@dataclass(frozen=True)
class Conflict:
    """Why two statements cannot both be true: one attribute, two values."""

    kind: SlotKind
    left: str
    right: str

    def describe(self) -> str:
        return f"{self.kind}: {self.left} versus {self.right}"


def tokens(text: str) -> list[str]:
    return _TOKEN.findall(_INITIAL_DOT.sub("", text.replace("’", "'")))


def _is_year(token: str) -> bool:
    return token.isdigit() and len(token) == 4 and 1000 <= int(token) <= 2100


def _capitalised(token: str, position: int, previous: str) -> bool:
    if not token[:1].isupper() or token.lower() in MONTHS:
        return False
    sentence_start = position == 0 or previous in '.!?:;"“('
    return not (sentence_start and token.lower() in STOP_WORDS)


def _relation(before: list[str]) -> frozenset[str]:
    """The nearest lower-case content word before a value: the verb or noun it fills
    ("born", "located", "established"). One word keeps "the plant opened in 2016" apart
    from "a ladder was added to the plant in 2019"."""
    for token in reversed(before[-_RELATION_SPAN:]):
        if token.islower() and is_content(token):
            return frozenset({relation_word(token)})
    return frozenset()


def read(text: str, context: str = "") -> Reading:
    """The subject and the slots of ``text``; ``context`` (a page title) adds subject names."""
    found = tokens(text)
    # The first word is capitalised as every sentence's is: as a relation word it is read
    # in lower case ("Founded in 1770 by …" fills the founding date).
    opening = [t.lower() for t in found[:1]] + found[1:]
    names: list[tuple[str, ...]] = []
    years: set[str] = set()
    slots: list[Slot] = []
    slot_spans: set[int] = set()
    index = 0
    while index < len(found):
        token = found[index]
        previous = found[index - 1] if index else ""
        before = [t for t in opening[max(0, index - 8) : index] if t.isalpha()]
        if previous.lower() in _PLACE_WORDS | _NAME_WORDS and _capitalised(token, index, ""):
            end = _span_end(found, index)
            kind: SlotKind = "place" if previous.lower() in _PLACE_WORDS else "name"
            slots.append(Slot(kind, " ".join(found[index:end]), _relation(before[:-1])))
            slot_spans.update(range(index, end))
            index = end
            continue
        if _is_year(token):
            following = found[index + 1] if index + 1 < len(found) else ""
            if following.isalpha() and following.lower() not in STOP_WORDS:
                years.add(token)  # "the 2012 Leap Day outbreak": the year names the subject
            else:
                slots.append(Slot("date", _date_around(found, index), _relation(before)))
        index += 1
    for start, end in _name_spans(found):
        if not slot_spans & set(range(start, end)):
            names.append(tuple(t.lower() for t in found[start:end]))
    head, guess = _head(found, context)
    if head and head not in names:
        names.insert(0, head)
    mentions = tuple(names) + tuple(
        tuple(s.value.lower().split()) for s in slots if s.kind in ("place", "name")
    )
    if context:
        context_reading = read(context)
        names += [n for n in context_reading.names if n not in names]
        names += [(s.value.lower(),) for s in context_reading.slots if s.kind == "place"]
        years |= context_reading.years | {
            s.value[-4:] for s in context_reading.slots if s.kind == "date"
        }
    slots += _number_slots(text)
    words = frozenset(relation_word(t) for t in found if is_content(t.lower()) and t.isalpha())
    titled = _title_head(context)
    return Reading(
        tuple(names), frozenset(years), tuple(slots), words, head, mentions, guess, titled
    )


def _head(found: list[str], context: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The name ``found`` opens with (after "The"), or the title's when it opens with a
    pronoun; and, when that name is a lone first word neither the title nor a later word
    of the statement gives again, that word as a guess instead."""
    start = 1 if found[:1] and found[0].lower() in _DETERMINERS else 0
    if start >= len(found):
        return (), ()
    token = found[start]
    if start == 0 and token.lower() in _PRONOUNS:
        return _title_head(context), ()
    if not token.isalpha() or not _capitalised(token, start, found[start - 1] if start else ""):
        return (), ()
    end = _span_end(found, start)
    name = tuple(t.lower() for t in found[start:end])
    repeated = token in found[end:] or token.lower() in {t.lower() for t in tokens(context)}
    if start == 0 and all(t.isdigit() for t in found[1:end]) and not repeated:
        return (), name
    return name, ()


def _title_head(title: str) -> tuple[str, ...]:
    """A page title's first name ("Tessel, Brenna" → tessel; "Alan Smith (composer)" → alan
    smith): in a title the opening word is a name too."""
    found = tokens(title)
    for index, token in enumerate(found):
        if token.isalpha() and token[:1].isupper() and token.lower() not in STOP_WORDS | MONTHS:
            return tuple(t.lower() for t in found[index : _span_end(found, index)])
    return ()


def _span_end(found: list[str], start: int) -> int:
    """Where the name starting at ``start`` ends: over capitalised words, "of", "de",
    "von", and a number that is not a year ("Zorbel Z 32")."""
    end = start + 1
    while end < len(found) and (
        found[end][:1].isupper()
        or found[end] in ("of", "de", "von")
        or (found[end].isdigit() and not _is_year(found[end]))
    ):
        end += 1
    while end > start + 1 and found[end - 1] in ("of", "de", "von"):
        end -= 1
    return end


def _name_spans(found: list[str]) -> Iterable[tuple[int, int]]:
    index = 0
    while index < len(found):
        previous = found[index - 1] if index else ""
        if _capitalised(found[index], index, previous) and found[index].isalpha():
            end = _span_end(found, index)
            # A lone capitalised word opening a sentence is usually just capitalised (a
            # number after it, "Page 1", does not make it a name).
            lone = all(t.isdigit() for t in found[index + 1 : end])
            if not lone or not (index == 0 or previous in '.!?:;"“('):
                yield index, end
            index = end
        else:
            index += 1


def _date_around(found: list[str], index: int) -> str:
    """The date a year closes: "30 July 1970", "March 1975" or "1991"."""
    start = index
    if start > 0 and found[start - 1].lower() in MONTHS:
        start -= 1
        if start > 0 and found[start - 1].isdigit() and len(found[start - 1]) <= 2:
            start -= 1
    return " ".join(found[start : index + 1])


def _number_slots(text: str) -> list[Slot]:
    slots = []
    for quantity in quantities(text):
        if quantity.year or not quantity.unit:
            continue
        relation = frozenset(relation_word(w) for w in quantity.before)
        value = f"{quantity.value:g} {quantity.unit}"
        slots.append(Slot("number", value, relation, quantity.value, quantity.unit))
    return slots


def shared_names(a: Reading, b: Reading) -> bool:
    return any(same_name(x, y) for x in a.names for y in b.names)


def _names_one_of(name: tuple[str, ...], names: Iterable[tuple[str, ...]]) -> bool:
    return any(same_name(name, other) for other in names)


def _heads_apart(a: Reading, b: Reading) -> bool:
    """``a`` opens with a name, ``b`` with another, and neither statement names the other's
    nor gives it in full on the page it titles (``b``'s opening word only guessed at: nor
    does ``b``'s page title name ``a``'s)."""
    if not a.head:
        return False
    if b.head:
        named = _names_one_of(a.head, b.mentions) or _names_one_of(b.head, a.mentions)
        full = in_full(b.head, b.titled, a.head) or in_full(a.head, a.titled, b.head)
        return not (named or full)
    if b.guess:
        named_in_b = (*b.mentions, *b.names)
        return not (_names_one_of(a.head, named_in_b) or _names_one_of(b.guess, a.mentions))
    return False


def different_subjects(a: Reading, b: Reading) -> bool:
    """Clearly about different things: each is qualified by years and the years differ
    (different events), or each opens with its own name (``_heads_apart``), or both name
    something and share no name."""
    if a.years and b.years and not a.years & b.years:
        return True
    if _heads_apart(a, b) or _heads_apart(b, a):
        return True
    return bool(a.names and b.names) and not shared_names(a, b)


def same_subject(a: Reading, b: Reading) -> bool:
    """About one thing: a shared name (or, with no names on either side, most of the
    shorter statement's words shared) and no clash of qualifying years. A name on one side
    only leaves the subject unknown ("It was replaced in 1921" / "The Maren is due to be
    replaced in 2028"), which is not the same subject."""
    if different_subjects(a, b):
        return False
    if a.names or b.names:
        return bool(a.names and b.names)
    smaller = min(len(a.words), len(b.words))
    return smaller > 0 and len(a.words & b.words) / smaller >= 0.6


def _incompatible(x: Slot, y: Slot) -> bool:
    if x.kind != y.kind or not (x.relation & y.relation or x.kind == "number"):
        return False
    if x.kind == "number":
        assert x.number is not None and y.number is not None
        same_thing = x.unit == y.unit and (bool(x.relation & y.relation) or x.unit != "")
        return same_thing and not math.isclose(x.number, y.number, rel_tol=0.02)
    if x.kind == "date":
        return x.value[-4:] != y.value[-4:] or (
            len(x.value) > 4 and len(y.value) > 4 and x.value != y.value
        )
    return x.value.lower() != y.value.lower()


def slot_conflicts(a: Reading, b: Reading) -> list[Conflict]:
    """The attributes both readings fill with incompatible values (subjects not checked)."""
    found = []
    for x in a.slots:
        for y in b.slots:
            if _incompatible(x, y) and not any(_agrees(x, z) for z in b.slots):
                found.append(Conflict(x.kind, x.value, y.value))
    return found


def _agrees(x: Slot, y: Slot) -> bool:
    """``y`` gives the same value for ``x``'s attribute (two dates in one sentence)."""
    return x.kind == y.kind and x.value.lower() == y.value.lower()


def reading_conflict(left: Reading, right: Reading) -> Conflict | None:
    """The first attribute two readings fill incompatibly, if they share a subject."""
    if not same_subject(left, right):
        return None
    found = slot_conflicts(left, right)
    return found[0] if found else None


def conflict(a: str, b: str, *, context_a: str = "", context_b: str = "") -> Conflict | None:
    """The first attribute two statements fill incompatibly, if they share a subject."""
    return reading_conflict(read(a, context_a), read(b, context_b))
