"""The passage around a claim: its quote's sentence with its neighbours, from its snapshot.

The one owner of "what a model reads around a claim". A claim's evidence records where its
quote stands in a snapshot (offsets); the passage is that sentence and the sentences
around it (``reading.passages.around``), with the page's title, so "He was born in 1950"
reaches the model with the sentence that names him. Pages are read from the run's
snapshots once (``run_pages``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from assay.errors import UnsafePathError
from assay.reading.passages import PASSAGE_TOKENS, Page, Passage, merged
from assay.reading.tokens import estimate_tokens
from assay.store.claims import ClaimRecord
from assay.store.sources import SourceLedger
from assay.text import Sentence


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


def claims_in_passages(
    claims: Sequence[ClaimRecord], pages: Mapping[str, Page], tokens: int
) -> tuple[list[tuple[ClaimRecord, str]], list[str]]:
    """The claims a prompt of about ``tokens`` shows, in the order it numbers them, each
    with the passage it stands in ("" when shown alone), and the prompt's lines.

    ``claims`` are taken best first, each in its passage, or in its own sentence alone when
    the passage does not fit, or skipped. The lines show each page once, under its title,
    its passages in page order; a claim's quoted sentence is replaced by the claim,
    numbered ``[n]``, its neighbours stay as context. Claims with no readable page follow,
    numbered, alone."""
    chosen: list[tuple[ClaimRecord, Passage | None]] = []
    for claim in claims:
        passage = claim_passage(claim, pages)
        options = [passage, claim_passage(claim, pages, tokens=0)] if passage else [None]
        for option in options:
            if _tokens([*chosen, (claim, option)]) <= tokens:
                chosen.append((claim, option))
                break
    shown = merged(p for _, p in chosen if p is not None)
    offered: list[tuple[ClaimRecord, str]] = []
    lines: list[str] = []
    placed: set[str] = set()
    for source_id in dict.fromkeys(p.source_id for p in shown):
        passages = [p for p in shown if p.source_id == source_id]
        lines += [""] if lines else []
        lines.append(f"PAGE: {passages[0].title}")
        for number, passage in enumerate(passages):
            lines += ["…"] if number else []
            for sentence in passage.sentences:
                here = [
                    claim for claim, p in chosen
                    if p is not None and claim.id not in placed
                    and _quoted_at(claim, source_id, sentence)
                ]  # fmt: skip
                for claim in here:
                    placed.add(claim.id)
                    offered.append((claim, passage.text))
                    lines.append(f"[{len(offered)}] {claim.text}")
                if not here:
                    lines.append(sentence.text)
    for claim, _ in chosen:
        if claim.id not in placed:
            offered.append((claim, ""))
            lines.append(f"[{len(offered)}] {claim.text}")
    return offered, lines


def _quoted_at(claim: ClaimRecord, source_id: str, sentence: Sentence) -> bool:
    """Whether one of the claim's quotes on page ``source_id`` stands in ``sentence``."""
    return any(
        e.source_id == source_id and e.start < sentence.end and sentence.start < e.end
        for e in claim.evidence
    )


def _tokens(chosen: Sequence[tuple[ClaimRecord, Passage | None]]) -> int:
    shown = merged(p for _, p in chosen if p is not None)
    alone = [claim.text for claim, p in chosen if p is None]
    return sum(p.tokens for p in shown) + sum(estimate_tokens(t) + 2 for t in alone)
