"""Multi-hop search: after each reading round, what is still missing, and where to look.

Many questions need a second search on what the first one found ("the film shot in Leland
in 1986" → "Maximum Overdrive" → who directed it). With a model, each page read names the
next search itself (hoploop.py; ``follow_up`` turns it into a round's queries). Without
one, or when the model's reply does not validate, the bridge rule decides: the bridge
entities (names in relevant claims that the question does not contain) are searched with
the question's words their claims do not cover, and for a yes/no or "A or B" question each
side without evidence is searched by name. Rounds are bounded (``MAX_ROUNDS`` without a
model, the hop loop's budget with one) and each is recorded.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from assay.answers.kinds import names_in, shape_of
from assay.answers.ranking import rank
from assay.claims.relevance import recorded_relevant
from assay.engines.extractive.planner import key_phrase
from assay.gather.search.web_search import MIN_QUERIES
from assay.store.claims import ClaimRecord
from assay.text import content_words, raw_words

MAX_ROUNDS = 3
"""Reading rounds per run: the first search and up to two follow-ups."""
HOP_SOURCES = 2
"""Sources read in each follow-up round."""
_BRIDGES = 2


@dataclass(frozen=True)
class Hop:
    """What is still missing, the queries that look for it, and the targets that a claim
    gathered for it is judged relevant against."""

    missing: str
    queries: tuple[str, ...]
    targets: tuple[str, ...]
    by: Literal["model", "rule"] = "rule"


def side_targets(question: str) -> list[str]:
    """For a yes/no or "A or B" question, one target per side: its name and what is asked
    ("Pterocarya plant genera"), so a claim about either side counts as relevant."""
    shape = shape_of(question)
    if shape.kind not in ("yesno", "choice") or len(shape.options) < 2:
        return []
    named = set().union(*(content_words(o) for o in shape.options))
    predicate = " ".join(
        w for w in raw_words(key_phrase(question)) if not set(content_words(w)) <= named
    )
    return [f"{option} {predicate}".strip() for option in shape.options]


def bridge_hop(question: str, claims: Sequence[ClaimRecord], searched: set[str]) -> Hop | None:
    """The next hop without a model (see the module docstring), or ``None``."""
    shape = shape_of(question)
    asked = set(content_words(question))
    # a claim recorded as off-topic (another journal of the same name pattern) is no bridge
    ranked = rank(question, [c for c in claims if recorded_relevant(c)])
    if shape.kind in ("yesno", "choice"):
        sides = [
            target
            for option, target in zip(shape.options, side_targets(question), strict=False)
            if not any(
                set(content_words(option)) <= set(content_words(r.claim.text)) for r in ranked
            )
        ]
        return _hop("evidence on " + ", ".join(sides), sides, searched, question) if sides else None
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
        for name in quoted + names_in(item.claim.text):
            words = set(content_words(name))
            fresh = name.lower() not in searched and name not in {b for b, _ in bridges}
            if words and not words <= asked and fresh:
                bridges.append((name, " ".join(uncovered)))
                break
        if len(bridges) == _BRIDGES:
            break
    targets = [f"{name} {rest}".strip() for name, rest in bridges]
    found = [b for b, _ in bridges]
    return _hop(", ".join(found), targets, searched, question, found) if bridges else None


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
    return Hop(hop.missing, hop.queries, hop.targets, "model") if hop is not None else None
