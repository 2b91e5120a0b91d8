"""One line about a run, as ``assay runs`` and the web app's run list show it."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from pydantic import BaseModel

from assay.store.claims import ClaimLedger
from assay.store.runs import RunInfo, RunStore


class RunSummary(BaseModel):
    """``run_summary`` as a typed record (the web API's and the MCP server's run list)."""

    id: str
    started: str
    topic: str
    protocol: str
    status: str
    claims_verified: int
    claims_total: int
    duration_s: float | None


def claim_counts(store: RunStore, info: RunInfo) -> tuple[int, int]:
    """(verified, total) claims of the run."""
    claims = ClaimLedger(store.root / info.id).read().records
    return sum(1 for c in claims if c.get("status") == "verified"), len(claims)


def duration_s(info: RunInfo) -> float | None:
    try:
        start = datetime.fromisoformat(info.created_at)
        end = datetime.fromisoformat(info.finished_at) if info.finished_at else None
    except ValueError:
        return None
    if end is None:
        end = datetime.now(UTC) if info.effective_status() == "running" else None
    return (end - start).total_seconds() if end else None


def run_summary(store: RunStore, info: RunInfo) -> dict[str, Any]:
    verified, total = claim_counts(store, info)
    return {
        "id": info.id,
        "started": info.created_at,
        "topic": info.topic,
        "protocol": info.protocol,
        "status": info.effective_status(),
        "claims_verified": verified,
        "claims_total": total,
        "duration_s": duration_s(info),
    }
