"""Corroborate, then verify: the step every protocol's gathering ends with.

Each pending claim is judged against its own sources and, as corroboration, against the
run's other sources of independent origins that speak to it (``claims.corroborate``, one
coverage bar for every protocol); the verification engine gives it its status. The
protocols differ only in which sources may corroborate: the research agent and deep
research offer every source the run read, web research the sources it used (a page cut
at the size cap is never a source alone).

A claim recorded as off-topic is not judged: it is never presented, and judging it would
spend model calls (the larger share of a small model's run) on what no reader sees. It
stays ``unverified``, which ``assay verify`` takes as no promise.
"""

from __future__ import annotations

from collections.abc import Collection

from assay.claims.engine import VerificationEngine
from assay.claims.judge import Judge
from assay.claims.relevance import recorded_relevant
from assay.store.claims import ClaimRecord
from assay.store.runs import Run


async def corroborate_and_verify(
    run: Run,
    judge: Judge,
    *,
    only: Collection[str] | None = None,
    corroborators: Collection[str] | None = None,
) -> list[ClaimRecord]:
    """Verify each unverified claim (of ``only``, when given), offering ``corroborators``
    (source ids; every source of the run by default); returns the claims verified."""
    pending = [
        c.id
        for c in run.claim_ledger.claims()
        if c.status == "unverified" and recorded_relevant(c) and (only is None or c.id in only)
    ]
    if corroborators is None:
        corroborators = [r.id for r in run.source_ledger.records()]
    return await VerificationEngine(run, judge).verify_all(
        only=pending, corroborators=corroborators
    )
