"""Fact-checking one assertion by searching: the primitive behind search-synth's Phase 2
and the Climate-FEVER benchmark.

Search with queries expanded from the assertion, read the best results (each becomes a
snapshot and a source), record the assertion as a claim citing what was read, and verify
it. The claim is appended before it is verified, so nothing is lost if the run stops.
"""

from __future__ import annotations

from assay.claims.engine import VerificationEngine
from assay.engines.extractive.planner import expand_queries
from assay.events import ClaimCreated
from assay.gather.session import GatherSession
from assay.store.claims import ClaimLedger, ClaimRecord, Confidence


async def fact_check(
    text: str,
    session: GatherSession,
    engine: VerificationEngine,
    *,
    max_sources: int = 4,
    created_by: str = "fact-check",
    confidence: Confidence = "medium",
) -> ClaimRecord:
    outcome = await session.search(expand_queries(text, count=4))
    source_ids: list[str] = []
    for result in outcome.results:
        if len(source_ids) >= max_sources:
            break
        read = await session.read(result.url)
        if read is not None and read.record.id not in source_ids:
            source_ids.append(read.record.id)
    ledger = ClaimLedger(session.run.dir, fsync=session.run.fsync)
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
