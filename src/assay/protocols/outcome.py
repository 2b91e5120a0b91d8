"""What every protocol's result says about its run, built one way for all of them.

Each protocol's result (``ResearchResult``, ``DeepResult``, ``SynthResult``,
``WebResearchResult``) carries its own fields; the claim counts by status, the sources and
the run's identity, status, usage and engine are these, from the run's ledgers.
"""

from __future__ import annotations

from collections import Counter
from typing import Any, TypedDict

from assay.protocols.runner import RunContext
from assay.statuses import CLAIM_STATUSES
from assay.store.runs import Run, RunStatus


class RunFields(TypedDict):
    """The fields of a protocol's result that describe the run itself."""

    run_id: str
    run_dir: str
    status: RunStatus
    reason: str | None
    claims: dict[str, int]
    sources: list[dict[str, Any]]
    usage: dict[str, Any]
    engine: str
    model: str | None


def claim_counts(run: Run) -> dict[str, int]:
    """How many of the run's claims have each status (every status listed, even at 0)."""
    found = Counter(c.status for c in run.claim_ledger.claims())
    return {status: found[status] for status in CLAIM_STATUSES}


def source_entries(run: Run) -> list[dict[str, Any]]:
    return [
        {"id": s.id, "url": s.url, "title": s.title, "snapshot": s.snapshot}
        for s in run.source_ledger.records()
    ]


def run_fields(context: RunContext) -> RunFields:
    run = context.run
    return RunFields(
        run_id=run.id,
        run_dir=str(run.dir),
        status=run.info.effective_status(),
        reason=run.info.reason,
        claims=claim_counts(run),
        sources=source_entries(run),
        usage=run.info.usage.model_dump(),
        engine=context.engine,
        model=context.model.name if context.model else None,
    )
