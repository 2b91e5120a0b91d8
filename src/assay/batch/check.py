"""``check``: one claim fact-checked in a run of its own (search, read, record, verify).

This is the claim-checking path the fact-checks of the other protocols use
(``assay.protocols.synth.factcheck``), given a run so that a batch of claims leaves auditable run
directories. Its answer is a verdict: the claim's status read as a FEVER-style label.
"""

from __future__ import annotations

from assay.claims.engine import VerificationEngine
from assay.config import Settings
from assay.gather.session import GatherSession
from assay.protocols.runner import execute, start_run
from assay.protocols.synth.factcheck import fact_check
from assay.store.claims import ClaimRecord

VERDICTS = ("supported", "refuted", "disputed", "not enough info")
CHECK_SOURCES = 4


def verdict(claim: ClaimRecord) -> str:
    """verified/weak → supported; contradicted → disputed when a source also supports it,
    else refuted; anything undecided → not enough info."""
    if claim.status in ("verified", "weak"):
        return "supported"
    if claim.status == "contradicted":
        backed = any(e.stance == "supports" for e in claim.evidence)
        return "disputed" if backed else "refuted"
    return "not enough info"


async def check_async(claim: str, *, settings: Settings, sources: int = CHECK_SOURCES) -> str:
    """Fact-check ``claim`` in a new run; its verdict."""
    context = start_run(settings, claim, "check", sources=sources)

    async def body() -> ClaimRecord:
        run = context.run
        async with GatherSession(
            run, settings, keys=context.keys, budget=context.budget
        ) as session:
            engine = VerificationEngine(run, context.judge)
            return await fact_check(claim, session, engine, max_sources=sources)

    return verdict(await execute(context, body))
