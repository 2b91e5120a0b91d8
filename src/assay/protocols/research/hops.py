"""Multi-hop search: after each reading round, what is still missing, and where to look.

Many questions need a second search on what the first one found ("the film shot in Tarnmouth
in 1986" → "Orange Creeps" → who directed it). With a model, each page read names the
next search itself (hoploop.py; ``follow_up`` turns it into a round's queries). Without
one, or when the model's reply does not validate, the bridge rule decides: the bridge
entities (names in relevant claims that the question does not contain) are searched with
the question's words their claims do not cover, and for a yes/no or "A or B" question each
side without evidence is searched by name. Rounds are bounded (``MAX_ROUNDS`` without a
model, the hop loop's budget with one) and each is recorded.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from assay.answers.ranking import rank
from assay.claims.relevance import recorded_relevant
from assay.engines.extractive.keywords import key_phrase
from assay.engines.extractive.subquestions import SubQuestion, sub_questions
from assay.gather.search.web_search import MIN_QUERIES
from assay.reading.names import names_in
from assay.reading.questions import shape_of
from assay.store.claims import ClaimRecord
from assay.text import content_words, raw_words

MAX_ROUNDS = 3
"""Reading rounds per run: the first search and up to two follow-ups."""
HOP_SOURCES = 2
"""Sources read in each follow-up round."""
_BRIDGES = 2


@dataclass(frozen=True)
class Hop:
    """What is still missing, the queries that look for it, the targets that a claim
    gathered for it is judged relevant against, and the heading its findings go under
    (a reader's words, not the search string)."""

    missing: str
    queries: tuple[str, ...]
    targets: tuple[str, ...]
    by: Literal["model", "rule"] = "rule"
    heading: str = ""

    def headings(self) -> dict[str, str]:
        """target → the heading its findings go under (the target itself when it is a
        sub-question, which reads as one)."""
        return {t: self.heading or t for t in self.targets}


def side_targets(question: str) -> list[str]:
    """For a yes/no or "A or B" question, one target per side: its look-up ("When was X
    founded?", subquestions.py), so a claim about either side counts as relevant."""
    return [sub.text for sub in sub_questions(question) if sub.angle == "side"]


def bridge_hop(question: str, claims: Sequence[ClaimRecord], searched: set[str]) -> Hop | None:
    """The next hop without a model (see the module docstring), or ``None``."""
    shape = shape_of(question)
    asked = set(content_words(question))
    # a claim recorded as off-topic (another journal of the same name pattern) is no bridge
    ranked = rank(question, [c for c in claims if recorded_relevant(c)])
    if shape.kind in ("yesno", "choice"):
        sides = [
            sub
            for sub in sub_questions(question)
            if sub.angle == "side"
            and sub.text.lower() not in searched
            and not any(
                set(content_words(sub.about)) <= set(content_words(r.claim.text)) for r in ranked
            )
        ]
        return _side_hop(sides, question) if sides else None
    # a bridge's claim must state something the question asks besides its names
    names = set().union(*(content_words(n) for n in names_in(question, skip_first=True)), set())
    asking = asked - names
    bridges: list[tuple[str, str]] = []
    for item in ranked[:8]:
        covered = set(content_words(item.claim.text))
        if not covered & asking:
            continue
        uncovered = [
            w
            for w in raw_words(key_phrase(question))
            if content_words(w) and not set(content_words(w)) <= covered
        ][:4]
        quoted = [n for n in names_in(item.claim.text) if f'"{n}"' in item.claim.text]
        opener = _opener(item.claim.text, claims)
        for name in [n for n in quoted + names_in(item.claim.text) if n != opener]:
            words = set(content_words(name))
            fresh = name.lower() not in searched and name not in {b for b, _ in bridges}
            if words and not words <= asked and fresh:
                bridges.append((name, " ".join(uncovered)))
                break
        if len(bridges) == _BRIDGES:
            break
    targets = [f"{name} {rest}".strip() for name, rest in bridges]
    found = [b for b, _ in bridges]
    hop = _hop(", ".join(found), targets, searched, question, found) if bridges else None
    if hop is None:
        return None
    heading = f"About {' and '.join(found)}, which a source ties to the question"
    return Hop(hop.missing, hop.queries, hop.targets, hop.by, heading)


def bridge_targets(question: str, claims: Sequence[ClaimRecord], best: int = 5) -> list[str]:
    """What a page reached through a bridge is judged relevant against: each name the
    ``best`` most relevant claims give that the question does not contain, with the
    question's key words ("Blue Lantern Press started company released novel …")."""
    asked = set(content_words(question))
    ranked = rank(question, [c for c in claims if recorded_relevant(c)])[:best]
    names = [n for item in ranked for n in names_in(item.claim.text)]
    fresh = [n for n in dict.fromkeys(names) if not set(content_words(n)) <= asked]
    return [f"{name} {key_phrase(question)}" for name in fresh]


def _side_hop(sides: Sequence[SubQuestion], question: str) -> Hop:
    """A round for the sides no relevant claim speaks of yet: their own look-ups' queries
    ("X founded", "when was X founded"), their sub-questions as targets and headings."""
    queries = [q for pair in zip(*(s.queries for s in sides), strict=False) for q in pair]
    queries = list(dict.fromkeys([*queries, question]))
    missing = "evidence on " + ", ".join(s.about for s in sides)
    return Hop(missing, tuple(queries[: max(MIN_QUERIES, 2 * len(sides))]),
               tuple(s.text for s in sides))  # fmt: skip


def _opener(text: str, claims: Sequence[ClaimRecord]) -> str:
    """The claim's first word when it is capitalised only because it opens a sentence
    ("Every claim …", "Critics say …"): a name recurs capitalised inside a sentence of
    some claim; a word that never does is no bridge to search for."""
    first = text.split(" ", 1)[0].strip("\"'“‘(")
    if not first[:1].isupper() or " " in first:
        return ""
    inside = re.compile(rf"(?<=[a-z,;:] ){re.escape(first)}\b")
    return "" if any(inside.search(c.text) for c in claims) else first


def _hop(
    missing: str,
    targets: Sequence[str],
    searched: set[str],
    question: str,
    names: Sequence[str] = (),
) -> Hop | None:
    fresh = [t for t in dict.fromkeys(targets) if t.lower() not in searched]
    if not fresh:
        return None
    # at least three queries: the bare names (searched once, never again), the question
    padding = [*names, key_phrase(question), question]
    queries: list[str] = []
    for query in [*fresh, *padding, f"{fresh[0]} {key_phrase(question)}"]:
        if query.lower() not in {q.lower() for q in queries}:
            queries.append(query)
    return Hop(missing, tuple(queries[: max(MIN_QUERIES, len(fresh))]), tuple(fresh))


def follow_up(search: str, searched: set[str], question: str) -> Hop | None:
    """The round for a search the model named after reading a page, padded to a
    webSearch's three queries; None when it was searched already."""
    query = " ".join(search.split())[:120]
    hop = _hop(query, [query], searched, question) if query else None
    if hop is None:
        return None
    return Hop(hop.missing, hop.queries, hop.targets, "model", f"Looked up next: {query}")
