"""A searcher's Phase 1 narrative as paragraphs: 3 to 5 of them, one per theme.

search-synth asks for "a NARRATIVE response (3-5 paragraphs)" that synthesizes, "NOT just
a list of results". So the sentences are grouped by what they say, never by the page they
came from: sentences that state the same thing (most of the words they add to the topic's
own shared both ways, or one subject's same dated or measured value,
``claims.conflict.read``) form one theme, two
sources' "opened in 2016" side by side. Themes come in the order of how directly they
answer the topic (the fitted relevance of their best sentence), so the first paragraph is
the answer and the rest its context. There are at most 5 paragraphs (the least relevant
themes are merged) and, when there are 3 sentences or more, at least 3 (the largest theme
is split).

The same themes shape a model-written narrative: each written sentence goes with the
theme of the first statement it rests on; statements its prose left out may complete the
narrative, verbatim, to 3 paragraphs.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from assay.claims.conflict import Reading, read
from assay.reading.relevance import relevances
from assay.report.prose import Prose
from assay.text import content_words

MIN_PARAGRAPHS = 3
MAX_PARAGRAPHS = 5
SAME = 0.5
"""Content words two sentences share both ways to state the same thing."""


@dataclass
class Written:
    """One sentence of a narrative: its text, the sources it cites (1-based), its quote."""

    text: str
    cites: list[int]
    quote: tuple[int, int] | None = None  # (start, end) in the first cited source's snapshot
    claim_id: str | None = None


def _title(found: Written, titles: Sequence[str]) -> str:
    return titles[found.cites[0] - 1] if found.cites and found.cites[0] <= len(titles) else ""


def _said(text: str, named: set[str]) -> set[str]:
    """What a sentence says beyond the topic's own words (every sentence names those)."""
    return set(content_words(text)) - named


def _same(a: set[str], b: set[str], first: Reading, second: Reading) -> bool:
    if a and b and min(len(a & b) / len(a), len(a & b) / len(b)) >= SAME:
        return True
    values = {(s.kind, s.value) for s in first.slots if s.kind in ("date", "number")}
    shared = values & {(s.kind, s.value) for s in second.slots}
    return bool(shared) and bool(first.head) and first.head == second.head


def themes(topic: str, found: Sequence[Written], titles: Sequence[str]) -> list[list[int]]:
    """Indices of ``found`` grouped by what they say, the most relevant theme first."""
    readings = [read(w.text, _title(w, titles)) for w in found]
    named = set(content_words(topic))
    said = [_said(w.text, named) for w in found]
    groups: list[list[int]] = []
    for index in range(len(found)):
        home = next(
            (
                group
                for group in groups
                if any(_same(said[index], said[j], readings[index], readings[j]) for j in group)
            ),
            None,
        )
        if home is None:
            groups.append([index])
        else:
            home.append(index)
    scores = [
        r.score
        for r in relevances(topic, [w.text for w in found], [_title(w, titles) for w in found])
    ]
    ranked = sorted(groups, key=lambda g: (-max(scores[i] for i in g), g[0]))
    return _sized(ranked)


def _sized(groups: list[list[int]]) -> list[list[int]]:
    """At most ``MAX_PARAGRAPHS`` (the last, least relevant, merged) and, with enough
    sentences, at least ``MIN_PARAGRAPHS`` (the largest split in two, in order)."""
    groups = [list(g) for g in groups if g]
    while len(groups) > MAX_PARAGRAPHS:
        last = groups.pop()
        groups[-1] += last
    while len(groups) < MIN_PARAGRAPHS and any(len(g) > 1 for g in groups):
        largest = max(range(len(groups)), key=lambda n: len(groups[n]))
        group = groups[largest]
        half = (len(group) + 1) // 2
        groups[largest : largest + 1] = [group[:half], group[half:]]
    return groups


def paragraphs(topic: str, found: Sequence[Written], titles: Sequence[str]) -> list[list[Written]]:
    """The verbatim sentences as 3–5 thematic paragraphs (see the module docstring)."""
    return [[found[i] for i in group] for group in themes(topic, found, titles)]


def written_paragraphs(
    topic: str, prose: Prose, found: Sequence[Written], titles: Sequence[str]
) -> list[list[Written]]:
    """A model's prose as thematic paragraphs: each written sentence (citing its
    statements' sources) with the theme of the first statement it rests on; when that
    makes fewer than 3, themes its prose left out are added with their own sentences."""
    grouped = themes(topic, found, titles)
    theme_of = {i: n for n, group in enumerate(grouped) for i in group}
    written: dict[int, list[Written]] = {}
    for sentence in prose.sentences:
        cites = list(dict.fromkeys(c for n in sentence.cites for c in found[n - 1].cites))
        first = theme_of.get(sentence.cites[0] - 1, 0) if sentence.cites else 0
        written.setdefault(first, []).append(Written(sentence.text, cites))
    order = sorted(written)
    out = [written[n] for n in order]
    for n, group in enumerate(grouped):
        if len(out) >= MIN_PARAGRAPHS:
            break
        if n not in written:
            out.append([found[i] for i in group])
    return out[:MAX_PARAGRAPHS]
