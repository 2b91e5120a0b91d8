"""Claim extraction and verification against the REAL local model (marked ``localllm``)."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import httpx2
import pytest

from assay.claims.engine import VerificationEngine
from assay.claims.extract import DraftClaim, record_claims
from assay.claims.model_extract import ModelExtractor
from assay.claims.model_judge import ModelJudge
from assay.keys import KeyStore
from assay.models import ModelOptions, UsageMeter, resolve_model
from assay.store.claims import ClaimLedger, ClaimRecord
from assay.store.runs import RunStore
from assay.store.sources import SourceLedger
from tests.localllm_fixtures import BASE_URL, MODEL_NAME

pytestmark = [pytest.mark.localllm, pytest.mark.usefixtures("allow_requests")]

PAGE_A = (
    "The Halvorsen Lighthouse stands on the northern cape of Brill Island. "
    "Its tower is 41 metres tall and was completed in 1887. "
    "The light can be seen from 22 nautical miles away on a clear night."
)
PAGE_B = (
    "Visitors to Brill Island often climb the old lighthouse. "
    "Completed in 1887, the Halvorsen Lighthouse tower is 41 metres tall. "
    "A small museum at its base tells the story of the keepers."
)
PAGE_C = "The Halvorsen Lighthouse tower is 35 metres tall, according to the 1990 survey."


def test_extract_then_verify_with_the_local_model(isolated_home: Path) -> None:
    run = RunStore(isolated_home, fsync=False).create("lighthouse", "test", {})
    ledger = SourceLedger(run.dir, fsync=False)
    ids = [
        ledger.add(
            url=f"http://{host}.test/",
            final_url=f"http://{host}.test/",
            title=host,
            text=text,
            content_type="text/html",
            accessed_at="2026-11-29T00:00:00Z",
        ).id
        for host, text in (("a", PAGE_A), ("b", PAGE_B), ("c", PAGE_C))
    ]
    meter = UsageMeter()

    async def go() -> tuple[list[DraftClaim], list[ClaimRecord], float, float]:
        async with httpx2.AsyncClient(trust_env=False) as client:
            model = resolve_model(
                f"openai:{MODEL_NAME}",
                ModelOptions(base_url=BASE_URL, keys=KeyStore(isolated_home), http_client=client),
            )
            started = time.monotonic()
            drafts = await ModelExtractor(model, meter=meter).extract(
                "How tall is the Halvorsen Lighthouse?", PAGE_A
            )
            extracted = time.monotonic() - started
            claims = record_claims(run, ids[0], drafts, created_by=model.name, reason="test")
            # cross-check each claim against every source of the run
            ClaimLedger(run.dir).rewrite([c.model_copy(update={"source_ids": ids}) for c in claims])
            started = time.monotonic()
            verified = await VerificationEngine(run, ModelJudge(model, meter=meter)).verify_all()
            return drafts, verified, extracted, time.monotonic() - started

    drafts, verified, extract_s, verify_s = asyncio.run(go())
    assert drafts, "the model extracted no claim"
    for draft in drafts:
        assert draft.quote in PAGE_A  # verbatim, located
    height = [c for c in verified if "41" in c.text]
    assert height, f"no claim about the height: {[c.text for c in verified]}"
    statuses = {c.id: (c.status, c.status_reason) for c in verified}
    print(f"\nextract {extract_s:.1f}s verify {verify_s:.1f}s usage {meter.totals} {statuses}")
    # A and B (different sites) state 41 m; C states 35 m: both sides must be kept.
    assert height[0].status == "contradicted"
    stances = {(e.source_id, e.stance) for e in height[0].evidence}
    assert {(ids[0], "supports"), (ids[1], "supports"), (ids[2], "refutes")} <= stances
