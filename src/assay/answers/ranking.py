"""Which claims can answer a question, most relevant first — one hop or two.

A claim is ranked by its relevance to the question. A two-hop question ("who directed
the film shot in Tarnmouth in 1986?") is answered by a claim about something the question
never names ("Orange Creeps … directed by Ida Brannock"); that claim is ranked by the
relevance of itself joined with the claim that led to it (one naming its subject), and
carries both ids, so the answer cites the whole chain.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from importlib import resources

from assay.claims.relevance import recorded_relevant
from assay.reading.names import subject
from assay.reading.relevance import relevance, relevances
from assay.store.claims import ClaimRecord
from assay.text import content_words

SUPPORTED = ("verified", "weak")


@cache
def fitted(weight: str) -> float:
    """A weight of the answer step, fitted by benchmarks/fit_answers.py on the tune halves
    (``data/weights.json`` names the split and commit): ``hop_discount``, how much less sure
    a chain of two claims is than one claim; ``relevance_share``, the weight of a claim's
    relevance beside its share of the question's rare words; ``distance_scale``, the
    characters over which a span's distance from the question's words halves its score
    (spans.py)."""
    data = json.loads(resources.files("assay.answers").joinpath("data/weights.json").read_text())
    return float(data["weights"][weight])


@dataclass(frozen=True)
class Ranked:
    """A claim, its score for the question, and the claims the score rests on."""

    claim: ClaimRecord
    score: float
    basis: tuple[str, ...]


def usable(claims: Sequence[ClaimRecord]) -> list[ClaimRecord]:
    """Claims a source supports and that were not recorded as off-topic."""
    return [c for c in claims if c.status in SUPPORTED and recorded_relevant(c)]


def rank(question: str, claims: Sequence[ClaimRecord]) -> list[Ranked]:
    """``claims`` that share words with ``question`` (directly or through a claim naming
    their subject), best first; among equals, the one recorded first.

    The score is a weighted mean (``relevance_share``, fitted) of the claim's relevance and
    the share of the question's words it contains weighed by their rarity among these
    claims (a word every claim repeats — the page's own subject — tells them apart least)."""
    rarity = _rarity(question, claims)
    discount = fitted("hop_discount")
    # One batch through the embedder for every claim: a call per claim paid the model's
    # per-call cost each time (most of the answer step's time on a few dozen claims).
    meanings = relevances(question, [c.text for c in claims], [""] * len(claims))
    direct = {
        c.id: _mean(meaning.score, c.text, rarity)
        for c, meaning in zip(claims, meanings, strict=True)
    }
    words = {c.id: set(content_words(c.text)) for c in claims}
    ranked: list[Ranked] = []
    for claim in claims:
        best = Ranked(claim, direct[claim.id], (claim.id,))
        named = set(content_words(subject(claim.text)))
        for lead in claims:
            if lead.id == claim.id or not named or direct[lead.id] <= best.score:
                continue
            if named <= words[lead.id]:
                joined = _score(question, f"{lead.text} {claim.text}", rarity) * discount
                if joined > best.score:
                    best = Ranked(claim, joined, (claim.id, lead.id))
        if best.score > 0:
            ranked.append(best)
    order = {c.id: n for n, c in enumerate(claims)}
    return sorted(ranked, key=lambda r: (-round(r.score, 6), order[r.claim.id]))


def _rarity(question: str, claims: Sequence[ClaimRecord]) -> dict[str, float]:
    documents = [set(content_words(c.text)) for c in claims]
    total = len(documents)
    return {
        word: math.log(1 + (total + 1) / (1 + sum(word in d for d in documents)))
        for word in set(content_words(question))
    }


def _score(question: str, text: str, rarity: dict[str, float]) -> float:
    return _mean(relevance(question, text).score, text, rarity)


def _mean(meaning: float, text: str, rarity: dict[str, float]) -> float:
    """The weighted mean (``relevance_share``) of ``text``'s relevance read by meaning and
    its share of the question's rare words."""
    present = set(content_words(text))
    total = sum(rarity.values())
    rare = sum(w for word, w in rarity.items() if word in present) / total if total else 0.0
    share = fitted("relevance_share")
    return share * meaning + (1 - share) * rare
