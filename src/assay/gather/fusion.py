"""Reciprocal-rank fusion of the index's two passage rankings (BM25 and vector cosine).

A passage at rank r (1-based) of a ranking earns ``weight / (k + r)`` from it; its fused
score is the sum over the rankings it is in, and a document's is its best passage's.
Scores are divided by the most a passage can earn (first in both rankings), so a hit's
score lies in (0, 1]: 1.0 is first by words and by meaning, about 0.5 first in one ranking
and absent from the other. The values were fitted on the tune half of HotpotQA
(``benchmarks/hybrid_hotpot.py``; figures in benchmarks/README.md, "Hybrid index search").
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

Ranking = Sequence[tuple[int, int]]
"""(passage rowid, document rowid) pairs, best first."""


@dataclass(frozen=True)
class Fusion:
    k: int = 60
    """The standard RRF constant (Cormack et al., 2009): a rank's weight falls slowly, so a
    passage near the top of both rankings beats one first in only one."""
    candidates: int = 50
    """Distinct documents each ranking contributes."""
    vector_weight: float = 1.0
    """The vector ranking's weight against BM25's 1.0."""
    floor: float = 0.2
    """The least cosine a passage needs to enter the vector ranking: below it, all-MiniLM's
    cosines are noise, and without a floor every query would reach every document."""

    @property
    def best(self) -> float:
        return (1.0 + self.vector_weight) / (self.k + 1)


DEFAULT_FUSION = Fusion()


def fuse(
    lexical: Ranking, vector: Ranking, fusion: Fusion = DEFAULT_FUSION
) -> list[tuple[int, int, float]]:
    """(document, its best passage, fused score in (0, 1]), best first; ties keep the order
    in which the documents were first ranked (BM25's first)."""
    scores: dict[int, float] = {}
    doc_of: dict[int, int] = {}
    for ranking, weight in ((lexical, 1.0), (vector, fusion.vector_weight)):
        for rank, (passage, doc) in enumerate(ranking, start=1):
            scores[passage] = scores.get(passage, 0.0) + weight / (fusion.k + rank)
            doc_of[passage] = doc
    best: dict[int, tuple[int, float]] = {}
    for passage, score in scores.items():
        doc = doc_of[passage]
        if doc not in best or score > best[doc][1]:
            best[doc] = (passage, score)
    order = sorted(best.items(), key=lambda item: -item[1][1])  # sorted() is stable
    return [(doc, passage, score / fusion.best) for doc, (passage, score) in order]
