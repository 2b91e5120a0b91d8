"""The extractive engine's common themes: phrases several sources share, or one subject's
slot several sources fill.

A theme is named by what a reader would look for, never by a lone word ("Germany",
"Single", "Built" named three themes of one run): a candidate name is

- a **phrase**: two to four adjacent content words of a finding ("fighter aircraft",
  "Orsa coast guard", "fish ladder") that do not end in a verb ("aircraft developed",
  "bridge carries" are not noun phrases), found (stemmed) in the findings of two or more
  sources; or a multi-word **name** the findings give ("Valkar VK 38");
- an **entity/slot group**: findings about one subject (``claims.conflict.read``: the name
  the finding opens with) that fill one kind of slot, a date, a figure, a
  place, named "<subject>: dates" and so on, again across two or more sources.

A candidate made only of the topic's own words names nothing new and is skipped. Greedy:
the candidate that reaches the most sources, then the most findings not yet in a theme,
then the longest, names a theme of its findings; repeat, at most ``MAX_THEMES``, then
"Other findings".
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from assay.claims.conflict import read
from assay.reading.names import names_in
from assay.store.claims import ClaimRecord
from assay.text import content_words, is_content, raw_words, stem, words

MAX_THEMES = 5
OTHER = "Other findings"
MAX_PHRASE = 4
_SLOT_NAMES = {"date": "dates", "number": "figures", "place": "places", "name": "people"}


_OBJECT_STARTS = frozenset(
    ["a", "an", "the", "its", "their", "his", "her", "every", "each", "some", "this", "these",
     "those", "our", "your", "my"]
)  # fmt: skip


def _runs(text: str) -> list[list[tuple[str, str, str]]]:
    """Maximal runs of content words (stem, as written, the token after the word), split
    at any other word; a run never starts right after a number ("48 metres long" measures
    something, it names no theme)."""
    tokens = list(zip(words(text), raw_words(text), strict=True))
    runs: list[list[tuple[str, str, str]]] = [[]]
    for at, (word, raw) in enumerate(tokens):
        after = tokens[at + 1][0] if at + 1 < len(tokens) else ""
        measured = not runs[-1] and at > 0 and tokens[at - 1][0][:1].isdigit()
        if is_content(word) and not word.endswith("n't") and not word.isdigit() and not measured:
            runs[-1].append((stem(word), raw, after))
        elif runs[-1]:
            runs.append([])
    return [r for r in runs if r]


def verb_like(last: str, after: str) -> bool:
    """Whether a phrase ending in ``last`` (followed by ``after``) ends in a verb: a
    participle, or a word that takes an object ("carries 40,000", "rise 80 metres")."""
    lowered = last.lower()
    if len(lowered) > 4 and lowered.endswith(("ed", "ing")):
        return True
    return bool(after) and (after[0].isdigit() or after in _OBJECT_STARTS)


def phrases(text: str) -> list[tuple[str, str]]:
    """(key, as written) for each phrase of 2 to ``MAX_PHRASE`` adjacent content words
    that does not end in a verb (``verb_like``), and each name of two words or more (keys
    are stems, so "towers" meets "tower")."""
    found = []
    for run in _runs(text):
        for size in range(2, MAX_PHRASE + 1):
            for start in range(len(run) - size + 1):
                part = run[start : start + size]
                if any(verb_like(raw, after) for _, raw, after in part[-1:]):
                    continue
                found.append((" ".join(k for k, _, _ in part), " ".join(r for _, r, _ in part)))
    for name in names_in(text):
        if len(name.split()) >= 2:
            # numbers kept: "Valkar VK 38" and "Valkar VK 39" are two aircraft
            found.append((" ".join(stem(w) for w in words(name)), name))
    return found


def slot_groups(text: str, title: str) -> list[tuple[str, str]]:
    """(key, name) of each kind of slot the claim fills for its subject."""
    reading = read(text, title)
    if not reading.head or not reading.mentions:  # a subject the finding itself names
        return []
    subject = " ".join(reading.head)
    shown = next((n for n in names_in(text) if content_words(n) == list(reading.head)), "")
    shown = shown or " ".join(w.capitalize() for w in reading.head)
    kinds = dict.fromkeys(s.kind for s in reading.slots if s.kind in _SLOT_NAMES)
    return [(f"{subject}|{kind}", f"{shown}: {_SLOT_NAMES[kind]}") for kind in kinds]


def extractive_themes(
    topic: str,
    claims: Mapping[str, ClaimRecord],
    sources_of: Mapping[str, set[str]],
    titles: Mapping[str, str],
) -> list[tuple[str, tuple[str, ...]]]:
    """(name, claim ids) of each theme, "Other findings" last (see the module docstring).
    ``sources_of``: the sources each claim is cited from; ``titles``: each claim's page."""
    own = set(content_words(topic))
    candidates: dict[str, tuple[str, set[str]]] = {}
    for claim_id, claim in claims.items():
        found = phrases(claim.text) + slot_groups(claim.text, titles.get(claim_id, ""))
        for key, shown in found:
            stems = set(key.split("|")[0].split())
            if stems and stems <= own and "|" not in key:
                continue  # the topic's own words: every finding shares them
            entry = candidates.setdefault(key, (shown, set()))
            entry[1].add(claim_id)
    left = list(claims)
    themes: list[tuple[str, tuple[str, ...]]] = []
    while left and len(themes) < MAX_THEMES:
        best = _best(candidates, left, sources_of)
        if best is None:
            break
        shown, ids = candidates.pop(best)
        members = tuple(c for c in left if c in ids)
        themes.append((shown[:1].upper() + shown[1:], members))
        left = [c for c in left if c not in members]
    if left:
        themes.append((OTHER, tuple(left)))
    return themes


def _best(
    candidates: Mapping[str, tuple[str, set[str]]],
    left: Sequence[str],
    sources_of: Mapping[str, set[str]],
) -> str | None:
    best: tuple[tuple[int, int, int], str] | None = None
    for key, (shown, ids) in candidates.items():
        open_ids = [c for c in left if c in ids]
        reach = len(set().union(*(sources_of.get(c, set()) for c in open_ids))) if open_ids else 0
        if reach < 2:
            continue  # a theme is common: at least two sources share it
        score = (reach, len(open_ids), len(shown.split()))
        if best is None or score > best[0] or (score == best[0] and key < best[1]):
            best = (score, key)
    return best[1] if best else None
