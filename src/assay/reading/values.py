"""Values a text states: dates, years, quantities, and the events a date can be of.

The one owner of months and date shapes ("25 April 1845", "April 1845", "the 1990s", "the
19th century"), of counts ("2.5 million", "twice") and of event words: a "when" question's
event ("founded") is the same event as a sentence's word for it ("formed"), by the groups
in ``data/events.txt``.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import cache
from importlib import resources

from assay.text import stem

MONTH_NAMES = (
    r"(?:January|February|March|April|May|June|July|August|September|October|November|December)"
)
MONTH = rf"(?:{MONTH_NAMES}|Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sep|Sept|Oct|Nov|Dec)\.?"
DATE = re.compile(
    rf"\b(?:\d{{1,2}} {MONTH},? \d{{3,4}}|{MONTH} \d{{1,2}},? \d{{3,4}}|{MONTH} \d{{3,4}}|"
    r"\d{1,2}(?:st|nd|rd|th) century|1\d{3}|20\d{2}|\d{3,4}s)\b"
)
YEAR = re.compile(r"\b(?:1\d{3}|20\d{2})\b")
QUANTITY = re.compile(
    r"\b\d[\d,.]*(?: (?:million|billion|thousand|hundred|percent|per cent))?"
    r"|\b(?:once|twice|thrice|(?:one|two|three|four|five|six|seven|eight|nine|ten)-time)\b",
    re.IGNORECASE,
)
_DATED_SUBJECT = re.compile(
    r"^([^.;]{1,80}?) (?:is|was) (?:an?|the) (?:[A-Z][a-z]+ )?(?:1\d{3}|20\d{2}) [A-Za-z]"
)
_UNIT = re.compile(r" (?!and\b|or\b|in\b|of\b|the\b)[a-z]+\b")


def dates_in(text: str) -> list[tuple[int, str]]:
    """Each date in ``text`` with where it starts."""
    return [(m.start(), m.group()) for m in DATE.finditer(text)]


def quantities_in(text: str, *, with_unit: bool = False) -> list[tuple[int, str]]:
    """Each count or measure in ``text`` with where it starts (with its unit: "6 feet");
    the day of a date ("25 April 1845") and an ordinal ("the 27th time") count nothing."""
    dated = [m.span() for m in DATE.finditer(text) if re.search(r"[A-Za-z]", m.group())]
    found = []
    for match in QUANTITY.finditer(text):
        ordinal = text[match.end() : match.end() + 2] in ("st", "nd", "rd", "th")
        if ordinal or any(start <= match.start() < end for start, end in dated):
            continue
        unit = _UNIT.match(text, match.end()) if with_unit else None
        found.append((match.start(), (match.group() + (unit.group() if unit else "")).rstrip(".,")))
    return found


def dated_subject(text: str) -> str:
    """The subject a sentence dates outright ("X" of "X is a 1998 book", "Y was a 2004
    American film": the year it came out), or ""."""
    dated = _DATED_SUBJECT.search(text)
    return dated.group(1) if dated else ""


@cache
def _events() -> dict[str, str]:
    text = resources.files("assay.reading").joinpath("data/events.txt").read_text()
    groups = [line.split() for line in text.splitlines() if line and not line.startswith("#")]
    return {stem(word): stem(group[0]) for group in groups for word in group}


def event_key(word_stem: str) -> str:
    """The stem that stands for ``word_stem``'s event ("form" and "establish" for "found")."""
    return _events().get(word_stem, word_stem)


def first_value(texts: Sequence[str], *, years: bool) -> float | None:
    """The first year (``years``) or number the first of ``texts`` that states one states."""
    for text in texts:
        for match in (YEAR if years else QUANTITY).finditer(text):
            digits = re.sub(r"[^\d.]", "", match.group()).strip(".")
            if digits:
                return float(digits)
    return None
