"""Names in a text: capitalised phrases (people, works, places), joined over "of", "the"…

Shared by relevance (a question's names count only whole), answers (a "who" question is
answered with a name) and multi-hop search (a bridge entity is a name).
"""

from __future__ import annotations

import functools
import re

from assay.reading.values import MONTH_NAMES
from assay.text import content_words, split_sentences, stop_words

_NOT_A_NAME = re.compile(rf"{MONTH_NAMES}(?: \d+)*")  # a date is not a name
_ADVERB = re.compile(r"[A-Z][a-z]+ly,")
"""A sentence adverb ("Additionally, …"): a capitalised word in -ly that a comma follows
at the start of a text. Anywhere else such a word is a name ("Italy", "Emily", a town)."""
_HYPHEN = re.compile(r"[-\u2010\u2011\u2013]")  # hyphen-minus, hyphen, non-breaking, en dash
_KEPT = frozenset({"one", "two"})  # "Two Moons Press" keeps its "Two"
AUXILIARIES = frozenset(  # the verbs a yes/no question opens with
    [
        "is",
        "are",
        "was",
        "were",
        "do",
        "does",
        "did",
        "can",
        "could",
        "has",
        "have",
        "had",
        "will",
        "would",
        "should",
    ]
)
_CONNECTORS = frozenset(
    ["of", "the", "de", "da", "di", "del", "der", "van", "von", "la", "le", "du", "for", "on"]
)
_NAME_TOKEN = re.compile(r"[^\W_][\w'’.&-]*")


@functools.cache
def _leading(stops: frozenset[str]) -> frozenset[str]:
    return stops - _KEPT


def names_in(text: str, *, skip_first: bool = False) -> list[str]:
    """Capitalised phrases (names, titles, places) in order, joined over "of", "the", "de"…

    A capitalised stop word on its own ("The", "It") is not a name; with ``skip_first`` the
    text's first word is left out unless a name continues it (a question's "Which", "Are").
    A name ends with its sentence: "… based in Tarnby, Vellmark. The Rovers …" names
    "Vellmark", then "Rovers" (a dot that ends no sentence stays in: "St.", "D.C.").
    """
    tokens = [(m.group(), m.start()) for m in _NAME_TOKEN.finditer(text)]
    sentence_ends = {s.end for s in split_sentences(text)} if "." in text else set()
    stops = stop_words()  # English's, and the run's language's (assay.language)
    leading = _leading(stops)
    found: list[str] = []
    current: list[str] = []
    previous_end = -1

    def close() -> None:
        while current and current[-1].lower() in _CONNECTORS:
            current.pop()
        while current and current[0].lower() in leading:
            current.pop(0)
        if current:
            found.append(" ".join(current))
        current.clear()

    for position, (token, start) in enumerate(tokens):
        gap = text[previous_end:start] if previous_end >= 0 else " "
        if current and gap.strip() not in ("", "-"):
            close()  # punctuation between two words ends a name
        # A number continues a name right after one of its words ("Apollo 11"), never
        # after a connector: "London on 27 September" is a place, then a date.
        numbered = token[0].isdigit() and bool(current) and current[-1].lower() not in _CONNECTORS
        capital = token[0].isupper() or numbered
        if current and current[-1].lower() in _CONNECTORS and re.fullmatch(MONTH_NAMES, token):
            close()  # nor a month: "New York City on April 30" is a place, then a date
        if position == 0 and skip_first and token.lower() in stops | AUXILIARIES:
            capital = False
        if position == 0 and _ADVERB.match(text, start):
            capital = False
        if capital:
            current.append(token.rstrip("."))
            if start + len(token) in sentence_ends:
                close()
        elif current and token.lower() in _CONNECTORS:
            current.append(token)
        else:
            close()
        previous_end = start + len(token)
    close()
    return [n for n in found if n.lower() not in stops and not _NOT_A_NAME.fullmatch(n)]


def subject(text: str) -> str:
    """The name a sentence opens with (its subject), or ""."""
    names = names_in(text)
    return names[0] if names and 0 <= text.find(names[0]) <= len("The ") else ""


def names_at(text: str) -> list[tuple[int, str]]:
    """The names of ``text`` (``names_in``), each with where it starts."""
    found, cursor = [], 0
    for name in names_in(text):
        at = text.find(name, cursor)
        if at >= 0:
            found.append((at, name))
            cursor = at + len(name)
    return found


def name_words(question: str) -> set[str]:
    """The content words of the names a question gives (its first word aside)."""
    return {w for n in names_in(question, skip_first=True) for w in content_words(n)}


def naming_words(thing: str, text: str) -> set[str]:
    """The words of ``text`` that can name ``thing``: a word ``thing`` capitalises counts
    only where ``text`` uses it in a name, so "the largest publishing house in Denmark"
    does not name "Larkspur Publishing House"; its other words count anywhere."""
    named = {w for n in names_in(text) for w in content_words(n)}
    proper = {w for n in names_in(thing) for w in content_words(n)}
    return {w for w in content_words(text) if w not in proper or w in named}


def same_name(a: tuple[str, ...], b: tuple[str, ...]) -> bool:
    """Whether two names (their words, in order) name one thing: the same, one the other's
    tail or head ("Smith" / "Alan Smith"), or the other with middle names or a second
    family name left out ("Ada Vell" / "Ada Marie Vell" / "Ada Marie Vell Tarn": a page's
    first sentence gives the full name, a claim or a question the short one). A hyphen
    joins words of a name as a space does ("Ada Vell-Tarn" / "Ada Vell Tarn")."""
    a, b = _unhyphenated(a), _unhyphenated(b)
    short, long = (a, b) if len(a) <= len(b) else (b, a)
    if long[: len(short)] == short or long[-len(short) :] == short:
        return True
    rest = iter(long)  # the short name's words stand in the long one in the same order
    in_order = all(word in rest for word in short)
    return len(short) >= 2 and short[0] == long[0] and in_order


def _unhyphenated(name: tuple[str, ...]) -> tuple[str, ...]:
    """``name``'s words with hyphenated ones split: one page writes a double family name
    with a hyphen, another (or the same page, further on) with a space."""
    if not any(_HYPHEN.search(word) for word in name):
        return name
    return tuple(part for word in name for part in _HYPHEN.split(word) if part)


def in_full(long: tuple[str, ...], title: tuple[str, ...], short: tuple[str, ...]) -> bool:
    """Whether ``long``, opening a sentence of the page titled ``title``, is in full the
    name ``short`` gives: the title names ``short``; ``short``'s last word is one of
    ``long``'s after its first, and its first word one of the words before that or sharing
    their first three letters ("Ada Vell" / "Adaline Marie Vell", "Sir Ada Vell", "Mara Ada
    Vell", "Ada Vell Tarn": a page's first sentence gives the name in full, its title the
    name the person went by; "Stuart Vell" on Ada Vell's page is someone else)."""
    long, short = _unhyphenated(long), _unhyphenated(short)
    if len(short) < 2 or not title or not same_name(title, short) or short[-1] not in long[1:]:
        return False
    family = long.index(short[-1], 1)
    return any(word[:3] == short[0][:3] for word in long[:family])
