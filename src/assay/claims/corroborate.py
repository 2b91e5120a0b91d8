"""Cross-checking: which other sources of a run may corroborate a claim.

A claim is extracted from one source (and may cite others). A corroborating source must
be independent of all of them and of each other: its origin (registrable domain, or a
near-duplicate text, as ``claims.independence`` groups them) is one the claim does not
cite, and at most one source per origin is taken. Among those, the sources with a sentence
covering most of the claim's content words are the candidates; whether they support,
refute or say nothing is then the judge's call, and the verification engine attaches a
candidate to the claim only when the judge says it supports or refutes it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from assay.claims.independence import Origins
from assay.claims.relevance import coverage
from assay.engines.extractive.text import split_sentences

COVERAGE = 0.5


def corroborating_sources(
    claim: str,
    texts: Mapping[str, str],
    origins: Origins,
    *,
    cited: Sequence[str],
    limit: int = 3,
) -> list[str]:
    """Up to ``limit`` source ids, of distinct origins none of ``cited`` shares, each with a
    sentence covering ≥ COVERAGE of the claim (best covering first)."""
    taken = {origins.of.get(s, s) for s in cited}
    scored = []
    for source_id, text in texts.items():
        if source_id in cited or origins.of.get(source_id, source_id) in taken:
            continue
        best = max((coverage(claim, s.text) for s in split_sentences(text)), default=0.0)
        if best >= COVERAGE:
            scored.append((best, source_id))
    chosen: list[str] = []
    for _, source_id in sorted(scored, key=lambda x: (-x[0], x[1])):
        origin = origins.of.get(source_id, source_id)
        if origin not in taken and len(chosen) < limit:
            taken.add(origin)
            chosen.append(source_id)
    return chosen
