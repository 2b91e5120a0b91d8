"""Fact-checking one assertion by searching: the primitive behind search-synth's Phase 2
and the Climate-FEVER benchmark.

Search with queries expanded from the assertion, read the best results (each becomes a
snapshot and a source), record the assertion as a claim citing what was read, and verify
it. The claim is appended before it is verified, so nothing is lost if the run stops.

A check must be independent of the assertion: the sources it rests on (``Excluded``: in
search-synth, the pages the author cited for it) are never read again, nor any page of
their origins (registrable domain, or a near-duplicate text, as ``claims.independence``
groups them). Re-finding the cited page and calling the sentence VERIFIED would be
circular.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from urllib.parse import urlsplit

from assay.claims.engine import VerificationEngine
from assay.claims.independence import group_origins
from assay.engines.extractive.planner import expand_queries
from assay.events import ClaimCreated
from assay.gather.reader import ReadSource
from assay.gather.session import GatherSession
from assay.store.claims import ClaimRecord, Confidence
from assay.store.sources import SourceRecord
from assay.urls import registrable_domain


def _domain(url: str) -> str:
    return registrable_domain(urlsplit(url).hostname or "")


@dataclass(frozen=True)
class Excluded:
    """The sources a check must not count (an author's), with their texts."""

    records: Sequence[SourceRecord] = ()
    texts: Mapping[str, str] = field(default_factory=dict)

    def skips_url(self, url: str) -> bool:
        """Whether ``url`` is one of the sources or on one of their domains."""
        urls = {u for r in self.records for u in (r.url, r.final_url)}
        return url in urls or _domain(url) in {_domain(u) for u in urls}

    def shares_origin(self, read: ReadSource) -> bool:
        """Whether a page just read is one of the sources' origins (a mirror, a copy)."""
        if not self.records or self.skips_url(read.record.final_url):
            return bool(self.records)
        records = [*self.records, read.record]
        origins = group_origins(records, {**self.texts, read.record.id: read.text})
        return origins.of[read.record.id] in {origins.of[r.id] for r in self.records}


async def fact_check(
    text: str,
    session: GatherSession,
    engine: VerificationEngine,
    *,
    max_sources: int = 4,
    created_by: str = "fact-check",
    confidence: Confidence = "medium",
    excluded: Excluded | None = None,
) -> ClaimRecord:
    avoid = excluded or Excluded()
    outcome = await session.search(expand_queries(text, count=4))
    source_ids: list[str] = []
    for result in outcome.results:
        if len(source_ids) >= max_sources:
            break
        if avoid.skips_url(result.url):
            continue
        read = await session.read(result.url)
        if read is None or read.record.id in source_ids or avoid.shares_origin(read):
            continue
        source_ids.append(read.record.id)
    ledger = session.run.claim_ledger
    claim = ClaimRecord(
        id=ledger.next_id(),
        text=text,
        confidence=confidence,
        sourceIds=source_ids,
        reason=f"checked against {len(source_ids)} sources found by searching",
        created_by=created_by,
    )
    ledger.append(claim)
    session.run.events.emit(ClaimCreated(id=claim.id, confidence=confidence, source_ids=source_ids))
    verified = await engine.verify_all(only=[claim.id])
    return next(c for c in verified if c.id == claim.id)
