"""Which side of a comparison a fact speaks of, and what the cited quotes make true.

A fact speaks of a side when its page's title names the side whole, or its sentence names
it and opens with it (the sentence's head is the name or part of it): a fact on one
publisher's page, or a sentence that only mentions the side ("since 2012 he has written
for the Gazette", on a writer's page), is never read as a value of it. Deep research's
[SYNTHESIS] dates its sides this way (protocols/deep/conclusions.py), and so does the
check of a model's choice below.

``order_problem`` is that check: for "which … first/earlier/larger …, A or B?", when the
quotes the model cites — or, for a side they give no value for, the best-ranked claim offered
that does — state every side's year (earlier/later) or measured value (more/less), the
chosen side must be the one those values make true. It is a reason to
reject the reply (the model retries with it), never an answer of its own. It applies
only when the values decide without doubt: every value of one side lies beyond every
value of the other (a side dated 1900 and 2001 against one dated 1950 decides nothing),
and for measures, both sides in the same unit ("300 m" against "1,000 feet" decides
nothing). When no claim offered states a side's value, it does not apply.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from assay.claims.conflict import read
from assay.reading.passages import Page
from assay.reading.questions import Shape
from assay.reading.values import YEAR
from assay.store.claims import ClaimRecord
from assay.text import content_words

_SCALE = {"thousand": 1e3, "million": 1e6, "billion": 1e9}
_MEASURE = re.compile(
    r"(?<![\d.,])(\d[\d,]*(?:\.\d+)?)\s*(thousand|million|billion)?\s*([A-Za-z]+)?"
)
_WORD = {"earlier": "earlier", "later": "later", "more": "greater", "less": "smaller"}


def speaks_of(name: str, text: str, title: str) -> bool:
    """Whether a fact (its sentence ``text``, on a page titled ``title``) is about ``name``
    (see the module docstring)."""
    wanted = set(content_words(name))
    if not wanted:
        return False
    if title and wanted <= set(content_words(title)):
        return True
    head = set(content_words(" ".join(read(text).head)))
    return bool(head) and head <= wanted <= set(content_words(text))


def both_sides(shape: Shape) -> str:
    """What a choice decided by dates or quantities asks of an answer's citations ("" for
    any other question): the claims that state each side's value."""
    if shape.kind != "choice" or shape.direction not in _WORD or len(shape.options) != 2:
        return ""
    kind = "years" if shape.direction in ("earlier", "later") else "measures"
    return f"cite the claims that state the {kind} of {' and of '.join(shape.options)}"


def order_problem(
    answer: str,
    shape: Shape,
    cited: Sequence[ClaimRecord],
    pages: Mapping[str, Page],
    offered: Sequence[ClaimRecord] = (),
) -> str:
    """Why the chosen side of a date or quantity choice is not the one the quotes make
    true ("" when it is, or when they do not decide). A comparison rests on both sides'
    values: a side the cited quotes give no value for takes it from the best ``offered``
    claim that states one (``completing``: the local model cites one side's date alone,
    right or wrong, and a rule of citing both cost right answers too)."""
    chosen = _chosen(answer, shape)
    if not chosen:
        return ""
    values, added = _decided(shape, cited, pages, offered)
    if values is None:
        return ""
    (first, a), (second, b) = values.items()
    if max(a) < min(b):
        low, high = first, second
    elif max(b) < min(a):
        low, high = second, first
    else:
        return ""  # the values overlap or tie: they decide nothing
    right = low if shape.direction in ("earlier", "less") else high
    if chosen == right:
        return ""
    verb = "date" if shape.direction in ("earlier", "later") else "give"
    stated = " and ".join(f"{side} {_shown(v)}" for side, v in values.items())
    whose = "the claims" if added else "your cited claims"
    return (
        f"{whose} {verb} {stated}, so '{chosen}' is not the "
        f"{_WORD[shape.direction]}; answer with the side they make true"
    )


def completing(
    answer: str,
    shape: Shape,
    cited: Sequence[ClaimRecord],
    pages: Mapping[str, Page],
    offered: Sequence[ClaimRecord],
) -> list[ClaimRecord]:
    """The offered claims that give a side's value the cited ones lack (what a checked
    choice also rests on); [] when the cited claims state both or nothing decides."""
    if not _chosen(answer, shape):
        return []
    values, added = _decided(shape, cited, pages, offered)
    return added if values is not None else []


def _chosen(answer: str, shape: Shape) -> str:
    """The one side ``answer`` names, for a choice by dates or quantities ("" otherwise)."""
    if not both_sides(shape):
        return ""
    words = set(content_words(answer))
    chosen = [o for o in shape.options if set(content_words(o)) <= words]
    return chosen[0] if len(chosen) == 1 else ""


def _decided(
    shape: Shape,
    cited: Sequence[ClaimRecord],
    pages: Mapping[str, Page],
    offered: Sequence[ClaimRecord],
) -> tuple[dict[str, list[float]] | None, list[ClaimRecord]]:
    """Each side's values (None when a side has none, or for measures the sides share no
    one unit): from the cited quotes, and for a side they give none, from the first
    offered claim that does (returned with them)."""
    found = _side_values(shape, cited, pages)
    added: list[ClaimRecord] = []
    for side in [s for s, got in found.items() if not got]:
        for claim in offered:
            got = _side_values(shape, [claim], pages)[side]
            if got:
                found[side] = got
                added.append(claim)
                break
    if shape.direction in ("earlier", "later"):
        years = {side: [v for v, _ in got] for side, got in found.items()}
        return (years if all(years.values()) else None), added
    units = [{unit for _, unit in got} for got in found.values()]
    shared = set.intersection(*units)
    if len(shared) != 1:
        return None, added
    (unit,) = shared
    return {side: [v for v, u in got if u == unit] for side, got in found.items()}, added


def _side_values(
    shape: Shape, cited: Sequence[ClaimRecord], pages: Mapping[str, Page]
) -> dict[str, list[tuple[float, str]]]:
    """Each side's values (with their units) in the cited quotes that speak of it."""
    found: dict[str, list[tuple[float, str]]] = {side: [] for side in shape.options}
    for claim in cited:
        for evidence in claim.evidence:
            if evidence.stance != "supports":
                continue
            page = pages.get(evidence.source_id)
            title = page.title if page is not None else ""
            for side in shape.options:
                if speaks_of(side, evidence.quote, title):
                    found[side] += _values(shape.direction, evidence.quote)
    return found


def _values(direction: str, quote: str) -> list[tuple[float, str]]:
    """The years a quote states (earlier/later), or its measured values with the word
    after each as its unit (more/less; a year is not a measure)."""
    if direction in ("earlier", "later"):
        return [(float(m.group()), "year") for m in YEAR.finditer(quote)]
    measures = []
    for match in _MEASURE.finditer(quote):
        digits, scale, unit = match.groups()
        if (YEAR.fullmatch(digits) and not scale) or not unit or not content_words(unit):
            continue  # "in 2010", or a number with no unit to compare it by ("5,000 in")
        value = float(digits.replace(",", "")) * _SCALE.get((scale or "").lower(), 1.0)
        measures.append((value, unit.lower().removesuffix("s")))
    return measures


def _shown(values: Sequence[float]) -> str:
    return " and ".join(f"{v:,.10g}" if v >= 1e4 else f"{v:g}" for v in sorted(set(values)))
