"""Cross-checking: which other sources of the run speak to a claim.

A claim is extracted from one source; before it is verified, every other source whose
snapshot has a sentence covering most of the claim's content words is added to the
sources the judge reads. Whether they support, refute or say nothing is then the judge's
call, and whether they are independent is the origin grouping's.
"""

from __future__ import annotations

from assay.claims.engine import RunSources
from assay.claims.relevance import coverage
from assay.engines.extractive.text import split_sentences

COVERAGE = 0.5


def corroborating_sources(
    claim: str, sources: RunSources, *, exclude: set[str], limit: int = 3
) -> list[str]:
    """Up to ``limit`` other source ids with a sentence covering ≥ COVERAGE of the claim."""
    scored = []
    for source_id, text in sources.texts.items():
        if source_id in exclude:
            continue
        best = max((coverage(claim, s.text) for s in split_sentences(text)), default=0.0)
        if best >= COVERAGE:
            scored.append((best, source_id))
    return [source_id for _, source_id in sorted(scored, key=lambda x: (-x[0], x[1]))[:limit]]
