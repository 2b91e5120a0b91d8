"""The [SYNTHESIS] lines a deep report draws from its facts without a model.

Each statement is a conclusion the cited facts support, built by code from what they say
(``claims.conflict.read``: each fact's subject, dates and measured values), never a count
of findings:

- a **comparison** the topic asks for ("Which was founded first, A or B?", "Which is
  taller?"): the two values the facts give and what they decide ("A was founded in 1770
  and B in 1869: A came first, by 99 years"), or which side the facts leave undated;
- per sub-question, its **answer** when the facts give one ("The facts date it: A was
  founded in 1770"; different years from different sources are said to differ), or what
  is missing ("None of these facts says when B was founded");
- a **timeline** of the section's dated facts when it asks for no one value;
- otherwise, what the evidence amounts to: which facts two independent sources confirm.

A fact speaks of a side when its page's title or its sentence's subject names the side
whole: a fact on one publisher's page, or one that only mentions the side, is never read
as a date of it.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from assay.claims.conflict import read
from assay.claims.sides import speaks_of
from assay.engines.extractive.asking import read_question
from assay.engines.extractive.subquestions import is_participle, noun_phrases, sub_questions
from assay.protocols.deep.groups import Group, clean
from assay.reading.questions import shape_of
from assay.store.claims import ClaimRecord
from assay.text import content_words, raw_words

_EVENT_WORDS = 6  # how far before a year its event word may stand
_MAX_TIMELINE = 5


@dataclass(frozen=True)
class Dated:
    """A year a fact gives, what happened then, and whose it is."""

    year: int
    event: str
    subject: str
    claim: ClaimRecord


@dataclass(frozen=True)
class Measured:
    """A measured value a fact gives (41 metres), and whose it is."""

    value: float
    shown: str
    unit: str
    subject: str


def _subject(claim: ClaimRecord, titles: Mapping[str, str]) -> str:
    title = titles.get(claim.id, "")
    if title:
        return title
    head = read(claim.text).head
    return " ".join(w.capitalize() for w in head) if head else ""


def dated(groups: Sequence[Group], titles: Mapping[str, str]) -> list[Dated]:
    """Each fact's first dated slot, with the word that says what happened then."""
    found = []
    for group in groups:  # a conflict's sides too: the section says their years differ
        for claim in group.claims:
            slot = next((s for s in read(claim.text).slots if s.kind == "date"), None)
            if slot is None or not slot.value[-4:].isdigit():
                continue
            year = slot.value[-4:]
            found.append(Dated(int(year), _event(claim.text, year), _subject(claim, titles), claim))
    return found


def _event(text: str, year: str) -> str:
    """The word that says what happened in ``year``: the nearest lower-case participle
    before it in its clause ("formed in Osricby in 2001" → "formed"), or ""."""
    clause = re.split(r"[;:.]", text.split(year, 1)[0])[-1]
    words = raw_words(clause)[-_EVENT_WORDS:]
    return next((w for w in reversed(words) if w.islower() and is_participle(w)), "")


def measured(groups: Sequence[Group], titles: Mapping[str, str]) -> list[Measured]:
    """Each fact's measured values (a number with a unit)."""
    found = []
    for group in groups:
        for claim in group.claims:
            for slot in read(claim.text).slots:
                if slot.kind == "number" and slot.number is not None and slot.unit:
                    match = re.search(rf"{re.escape(str(slot.number).removesuffix('.0'))}\s+\w+",
                                      claim.text)  # fmt: skip
                    shown = match.group() if match else slot.value
                    found.append(Measured(slot.number, shown, slot.unit, _subject(claim, titles)))
    return found


def comparison(topic: str, groups: Sequence[Group], titles: Mapping[str, str]) -> str:
    """What the facts decide about the comparison the topic asks for ("" for none)."""
    shape = shape_of(topic)
    sides = [s.about for s in sub_questions(topic) if s.angle == "side"]
    if shape.kind != "choice" or len(sides) != 2:
        return ""
    if shape.direction in ("earlier", "later"):
        return _by_years(sides, shape.direction, groups, titles)
    if shape.direction in ("more", "less"):
        return _by_measures(topic, sides, shape.direction, groups, titles)
    return ""


def _by_years(
    sides: list[str], direction: str, groups: Sequence[Group], titles: Mapping[str, str]
) -> str:
    found = dated(groups, titles)
    years = {}
    for side in sides:
        mine = [d for d in found if speaks_of(side, d.claim.text, d.subject)]
        if mine:
            years[side] = min(mine, key=lambda d: d.year)
    missing = [s for s in sides if s not in years]
    if missing:
        known = "; ".join(f"{s} {years[s].event or 'dated'} {years[s].year}" for s in years)
        return (
            f"The facts give no year for {' or '.join(missing)}, so they cannot settle the "
            f"comparison{f' ({known})' if known else ''}."
        )
    first, second = sorted(sides, key=lambda s: years[s].year)
    a, b = years[first], years[second]
    if a.year == b.year:
        return f"The facts give both {first} and {second} the year {a.year}: they do not decide."
    event = a.event or b.event or "dated"
    winner = first if direction == "earlier" else second
    verb = "came first" if direction == "earlier" else "came later"
    return (
        f"{first} was {event} in {a.year} and {second} in {b.year}: by these facts "
        f"{winner} {verb}, {b.year - a.year} years apart."
    )


def _by_measures(
    topic: str,
    sides: list[str],
    direction: str,
    groups: Sequence[Group],
    titles: Mapping[str, str],
) -> str:
    found = measured(groups, titles)
    values = {}
    for side in sides:
        mine = [m for m in found if set(content_words(side)) <= set(content_words(m.subject))]
        if mine:
            values[side] = mine[0]
    if len(values) < 2 or len({v.unit for v in values.values()}) != 1:
        return ""
    word = next((w for w in raw_words(topic) if w.lower().endswith(("er", "est"))), "more")
    ranked = sorted(sides, key=lambda s: values[s].value, reverse=direction == "more")
    shown = " against ".join(f"{s} {values[s].shown}" for s in sides)
    return f"The facts give {shown}: by these figures {ranked[0]} is the {word.lower()}."


def section(
    question: str,
    groups: Sequence[Group],
    titles: Mapping[str, str],
    confirmed: Sequence[Group] = (),
) -> str:
    """The conclusion of one sub-question's facts (see the module docstring);
    ``confirmed``: the groups two or more independent origins support."""
    shape = read_question(question)
    about = (noun_phrases(question) or [""])[0]
    found = dated(groups, titles)
    if question.lower().startswith("when") and about:
        mine = [d for d in found if speaks_of(about, d.claim.text, d.subject)]
        asked = " ".join(w for w in raw_words(shape.asked) if is_participle(w)) or "dated"
        if not mine:
            return f"None of these facts says when {about} was {asked}."
        years = sorted({d.year for d in mine})
        if len(years) > 1:
            return f"The facts give {about} different years: {', '.join(map(str, years))}."
        agree = f" ({len(mine)} facts agree)" if len(mine) > 1 else ""
        return f"The facts date it: {about} was {mine[0].event or asked} in {years[0]}{agree}."
    if len({d.year for d in found}) >= 2:
        ordered = sorted(found, key=lambda d: d.year)[:_MAX_TIMELINE]
        steps = "; ".join(
            f"{d.year}, {d.subject or 'a source'}{f' {d.event}' if d.event else ''}"
            for d in ordered
        )
        return f"In time order, the facts give: {steps}."
    if confirmed:
        lead = clean(confirmed[0].lead.text)
        return f"Two or more sources agree that {lead[0].lower() + lead[1:]}"
    if groups:
        return (
            "Each of these facts rests on one source: none is yet confirmed by a second, "
            "independent one."
        )
    return ""
