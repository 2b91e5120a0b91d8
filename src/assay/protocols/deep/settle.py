"""Statuses settled against the whole run, before the report is written.

Each direction's facts are verified as soon as its worker ends (so its score can use
them), against the origins known then. A page read later can show that two earlier
sources are one origin (a near-duplicate links them), so a claim verified early may rest
on one origin only by the end. ``settle`` re-assesses every claim's recorded evidence
with the run's final origins (no judge is asked again), as ``assay verify`` will.
"""

from __future__ import annotations

from assay.claims.assessment import RunSources, reassess
from assay.store.runs import Run


def settle(run: Run) -> int:
    """Rewrite statuses that changed; returns how many did."""
    ledger = run.claim_ledger
    sources = RunSources.load(run.source_ledger)
    origins = sources.origins()
    claims = ledger.claims()
    changed = 0
    for index, claim in enumerate(claims):
        if claim.status == "unverified":
            continue
        status, reason, _ = reassess(claim, sources, origins)
        if status != claim.status:
            claims[index] = claim.model_copy(update={"status": status, "status_reason": reason})
            changed += 1
    if changed:
        ledger.update(claims)
    return changed
