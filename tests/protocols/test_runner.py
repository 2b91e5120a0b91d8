"""Every run ends with a status and a reason; a budget ending leaves a partial report."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from assay.claims.engine import VerificationEngine
from assay.claims.model_judge import ModelJudge
from assay.config import load_settings
from assay.errors import BudgetExhausted, ProviderError
from assay.models.testing import ScriptedModel
from assay.protocols.runner import RunContext, execute, start_run
from assay.store.claims import ClaimLedger, ClaimRecord
from assay.store.jsonl import read_jsonl
from assay.store.markers import claim_markers
from assay.store.sources import SourceLedger
from tests.claims.test_engine import OTHER_SUPPORT, SUPPORT


def _context(calls: int, script: list[object]) -> tuple[RunContext, ScriptedModel]:
    settings = load_settings(budget_model_calls=calls)
    context = start_run(settings, "bridge", "test")
    model = ScriptedModel(script, usage=(120, 30))  # type: ignore[arg-type]
    context.model = model
    context.judge = ModelJudge(model, budget=context.budget, meter=context.meter)
    run = context.run
    sources = SourceLedger(run.dir, fsync=False)
    ids = [
        sources.add(
            url=f"http://{host}.test/",
            final_url=f"http://{host}.test/",
            title=host,
            text=text,
            content_type="text/html",
            accessed_at="2026-11-29T00:00:00Z",
        ).id
        for host, text in (("a", SUPPORT), ("b", OTHER_SUPPORT))
    ]
    claims = ClaimLedger(run.dir, fsync=False)
    for number in (1, 2):
        claims.append(
            ClaimRecord(
                id=f"claim_00{number}",
                text="The Zorbel bridge is 420 metres long.",
                confidence="high",
                sourceIds=ids,
            )
        )
    return context, model


def test_a_budget_running_out_ends_with_a_partial_report_and_its_reason() -> None:
    supports = {"label": "SUPPORTS", "sentence": 2}
    context, model = _context(calls=2, script=[supports, supports, supports])
    run = context.run

    async def body() -> None:
        await VerificationEngine(run, context.judge).verify_all()

    with pytest.raises(BudgetExhausted) as caught:
        asyncio.run(execute(context, body))
    assert "model-call budget of 2" in str(caught.value)
    assert len(model.requests) == 2  # the third call was refused before it was made
    claims = ClaimLedger(run.dir).claims()
    assert [c.status for c in claims] == ["verified", "unverified"]  # nothing lost
    report = (run.dir / "report.md").read_text()
    assert "Partial report" in report and "model-call budget of 2" in report
    assert dict(claim_markers(report)) == {"claim_001": "verified", "claim_002": "unverified"}
    assert "with model scripted:model" in report
    info = json.loads((run.dir / "run.json").read_text())
    assert info["status"] == "done" and info["reason"].startswith("partial: ")
    assert info["usage"]["model_calls"] == 2 and info["usage"]["input_tokens"] == 240
    types = [e["type"] for e in read_jsonl(run.dir / "run.log.jsonl").records]
    assert types[0] == "run.started" and types[-1] == "run.finished"
    assert types.count("usage") == 2 and "report.updated" in types


def test_a_run_error_is_recorded_and_the_run_fails(isolated_home: Path) -> None:
    context, _ = _context(calls=10, script=[])

    async def body() -> None:
        raise ProviderError("search endpoint down")  # e.g. the only search provider failed

    with pytest.raises(ProviderError):
        asyncio.run(execute(context, body))
    records = read_jsonl(context.run.dir / "run.log.jsonl").records
    error = next(r for r in records if r["type"] == "error")
    assert error["data"] == {"message": "search endpoint down", "kind": "ProviderError"}
    info = json.loads((context.run.dir / "run.json").read_text())
    assert info["status"] == "failed" and info["reason"] == "search endpoint down"
