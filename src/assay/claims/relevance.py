"""What the claims layer reads of relevance: the recorded flag, and word coverage.

Relevance itself is read by meaning in :mod:`assay.reading.relevance`; ``coverage`` is
the word-overlap primitive the judges use to ask whether a quote repeats a claim.
"""

from __future__ import annotations

from assay.store.claims import ClaimRecord
from assay.text import content_words


def coverage(claim: str, sentence: str) -> float:
    """The share of ``claim``'s content words (stemmed) that ``sentence`` contains."""
    wanted = set(content_words(claim))
    if not wanted:
        return 0.0
    return len(wanted & set(content_words(sentence))) / len(wanted)


def recorded_relevant(claim: ClaimRecord) -> bool:
    """The relevance recorded in the claim's ledger line (a claim without one counts)."""
    recorded = claim.relevance
    return recorded is None or recorded.relevant is not False
