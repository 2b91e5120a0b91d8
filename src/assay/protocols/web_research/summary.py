"""The ``summary`` output: ``## <topic> — Web Research Summary``, 2–3 paragraphs, sources.

Paragraph one holds the themes several sources share, two the other findings, three the
conflicting information (a single group is split in two). The synthesis is held to
200–400 words, citations and markers not counted: too long, and the lowest-status
sentences go (each paragraph keeps one); too short, and the findings not yet shown, then
the sources' own quotes where they say more than their key point, are added in order;
what cannot be met is a warning in the output.
"""

from __future__ import annotations

import re
from collections import Counter

from assay.claims.normalize import normalize_text
from assay.protocols.web_research.render import (
    Unit,
    answer_line,
    checked,
    claim_text,
    conflict_units,
    finish,
    rank,
    restated,
    title_of,
    with_refs,
)
from assay.protocols.web_research.synthesis import OTHER, Synthesis
from assay.store.markers import claim_marker, neutralize
from assay.text import raw_words

MIN_WORDS = 200
MAX_WORDS = 400
_NOT_WORDS = re.compile(r"\[<[^>\s]+>\]|\(claim_\d+: \w+\)|\]\([^)\s]+\)")


def word_count(text: str) -> int:
    """Words of a synthesis, not counting citations and markers."""
    return len(raw_words(_NOT_WORDS.sub(" ", text)))


def _paragraphs(units: list[Unit]) -> list[list[Unit]]:
    groups = [[u for u in units if u.paragraph == n] for n in range(3)]
    groups = [g for g in groups if g]
    if len(groups) == 1 and len(groups[0]) >= 2:
        half = (len(groups[0]) + 1) // 2
        groups = [groups[0][:half], groups[0][half:]]
    return groups


def _words(units: list[Unit]) -> int:
    return sum(word_count(u.text) for u in units)


def summary_units(s: Synthesis) -> list[Unit]:
    """The summary's sentences, held to 200–400 words (see the module docstring); what
    the answer line says word for word is not said again (not as a claim, a quote or a
    written summary; a conflict that includes it calls it the answer above)."""
    said = restated(s)
    units: list[Unit] = []
    for theme in s.themes:
        paragraph = 1 if theme.name == OTHER else 0
        if theme.summary:
            units.append(Unit(with_refs(s, theme.summary), theme.claim_ids, paragraph))
            continue
        for claim_id in (c for c in theme.claim_ids if c not in said):
            units.append(
                Unit(claim_text(s, claim_id) + ".", (claim_id,), paragraph, rank(s, claim_id))
            )
    units = checked(s, units + conflict_units(s, 2))
    shown = {m.group(1) for u in units for m in re.finditer(r"\((claim_\d+): ", u.text)} | said
    reserve = [
        Unit(claim_text(s, i) + ".", (i,), 1, rank(s, i))
        for i in sorted(s.claims, key=lambda c: rank(s, c))
        if i not in shown
    ]
    reserve += [
        Unit(
            f"[{title_of(f.title)}]({f.url}) "
            f"{claim_marker(q.claim_id, s.claims[q.claim_id].status)} "
            f"puts it this way: \u201c{neutralize(' '.join(q.text.split()))}\u201d",
            (q.claim_id,),
            1,
            9,
        )
        for f in s.findings
        for q in f.quotes
        if q.claim_id in s.claims and _differs(q.text, s.claims[q.claim_id].text)
    ]
    count = _words(units)
    for unit in checked(s, reserve):
        if count >= MIN_WORDS:
            break
        units.append(unit)
        count += word_count(unit.text)
    return _trimmed(s, [u for u in (_unsaid(s, unit) for unit in units) if u is not None])


MIN_ANSWER_WORDS = 4
"""A shorter answer ("1770", "Copenhagen") is a value, which sentences may well repeat."""


def _unsaid(s: Synthesis, unit: Unit) -> Unit | None:
    """``unit`` without the answer line's sentence, word for word: a quote or a written
    summary that says it goes; a conflict that includes it names it as the answer above."""
    if s.answer is None or not s.answer.found:
        return unit
    answer = _plain(s.answer.text)
    if len(answer.split()) < MIN_ANSWER_WORDS or answer not in _plain(
        _NOT_WORDS.sub(" ", unit.text)
    ):
        return unit
    if unit.text.startswith("Sources disagree: "):
        shown = neutralize(" ".join(s.answer.text.split())).rstrip(" .")
        kept = re.sub(re.escape(shown), "the answer above", unit.text, count=1, flags=re.I)
        return Unit(kept, unit.claim_ids, unit.paragraph, unit.rank)
    return None


def _plain(text: str) -> str:
    return " ".join(re.sub(r"[^\w\s]", " ", text).split()).casefold()


def _trimmed(s: Synthesis, units: list[Unit]) -> list[Unit]:
    """Drop the lowest-ranked, latest sentences until the words fit (each paragraph keeps
    one); a count still outside 200–400 is a warning."""
    words = [word_count(u.text) for u in units]
    count = sum(words)
    while count > MAX_WORDS:
        sizes = Counter(u.paragraph for u in units)
        movable = [i for i, u in enumerate(units) if sizes[u.paragraph] > 1]
        if not movable:
            break
        drop = max(movable, key=lambda i: (units[i].rank, i))
        count -= words.pop(drop)
        units.pop(drop)
    if not MIN_WORDS <= count <= MAX_WORDS:
        s.warnings.append(
            f"the summary has {count} words, outside the 200–400 asked for: "
            + (
                "the sources gave no further findings"
                if count < MIN_WORDS
                else "trimmed as far as it goes"
            )
        )
    return units


def _differs(quote: str, claim: str) -> bool:
    """Whether a quote adds words to its claim (an extractive key point is its own quote)."""
    return normalize_text(quote).casefold().rstrip(".") != normalize_text(claim).casefold().rstrip(
        "."
    )


def render_summary(s: Synthesis) -> str:
    units = summary_units(s)
    lines = [f"## {s.topic} — Web Research Summary", ""]
    answer = answer_line(s)
    if answer:
        lines += [answer, ""]
    for group in _paragraphs(units):
        lines += [" ".join(u.text for u in group), ""]
    lines += ["### Sources", ""]
    lines += [
        f"- [{title_of(f.title)}]({f.url}) (accessed: {f.record.accessed_at[:10]})"
        + (" (truncated at the size cap)" if f.truncated else "")
        for f in s.findings
    ]
    lines.append("")
    return finish(s, lines, "### Warnings")
