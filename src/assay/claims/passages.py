"""The passage around a claim: its quote's sentence with its neighbours, from its snapshot.

The one owner of "what a model reads around a claim". A claim's evidence records where its
quote stands in a snapshot (offsets); the passage is that sentence and the sentences
around it (``reading.passages.around``), with the page's title, so "He was born in 1950"
reaches the model with the sentence that names him. Pages are read from the run's
snapshots once (``run_pages``).
"""

from __future__ import annotations

from collections.abc import Mapping

from assay.errors import UnsafePathError
from assay.reading.passages import PASSAGE_TOKENS, Page, Passage
from assay.store.claims import ClaimRecord
from assay.store.sources import SourceLedger


def run_pages(ledger: SourceLedger) -> dict[str, Page]:
    """Every source of the run whose snapshot can be read, as a page, by source id."""
    pages: dict[str, Page] = {}
    for record in ledger.records():
        try:
            text = ledger.read_snapshot(record)
        except (OSError, UnicodeDecodeError, UnsafePathError):
            continue  # a missing snapshot fails the claim's own checks; nothing to read here
        pages[record.id] = Page.of(record.id, record.title or "", text)
    return pages


def claim_passage(
    claim: ClaimRecord, pages: Mapping[str, Page], tokens: int = PASSAGE_TOKENS
) -> Passage | None:
    """The passage around the claim's first quote (a supporting one first) whose page is
    in ``pages``, or None when no quote's page is."""
    ordered = sorted(claim.evidence, key=lambda e: e.stance != "supports")
    for evidence in ordered:
        page = pages.get(evidence.source_id)
        if page is not None:
            found = page.around(evidence.start, evidence.end, tokens)
            if found is not None:
                return found
    return None
