"""`assay verify` re-derives every status from the files and catches tampering."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from pathlib import Path

import pytest
from typer.testing import CliRunner

from assay.claims.engine import VerificationEngine
from assay.cli import app
from assay.report.claims_report import render_claims_report
from assay.store.claims import ClaimLedger, ClaimRecord
from assay.store.runs import Run, RunStore
from assay.store.sources import SourceLedger
from tests.claims.test_engine import OTHER_SUPPORT, SUPPORT, RuleJudge

runner = CliRunner()
WEAK_CLAIM = "Engineers finished the Zorbel bridge in 1931."


class YearJudge(RuleJudge):
    async def judge(self, claim: str, evidence: str):  # type: ignore[no-untyped-def]
        if claim == WEAK_CLAIM and WEAK_CLAIM in evidence:
            from assay.claims.judge import Verdict

            return Verdict("SUPPORTS", WEAK_CLAIM)
        return await super().judge(claim, evidence)


def build_run(home: Path) -> Run:
    run = RunStore(home, fsync=False).create("bridge", "test", {})
    ledger = SourceLedger(run.dir, fsync=False)
    a = ledger.add(
        url="http://a.test/1",
        final_url="http://a.test/1",
        title="A",
        text=SUPPORT,
        content_type="text/html",
        accessed_at="2026-11-29T00:00:00Z",
    )
    b = ledger.add(
        url="http://b.test/1",
        final_url="http://b.test/1",
        title="B",
        text=OTHER_SUPPORT,
        content_type="text/html",
        accessed_at="2026-11-29T00:00:00Z",
    )
    claims = ClaimLedger(run.dir, fsync=False)
    claims.append(
        ClaimRecord(
            id="claim_001",
            text="The Zorbel bridge is 420 metres long.",
            confidence="high",
            sourceIds=[a.id, b.id],
        )
    )
    claims.append(
        ClaimRecord(id="claim_002", text=WEAK_CLAIM, confidence="medium", sourceIds=[a.id])
    )
    verified = asyncio.run(VerificationEngine(run, YearJudge()).verify_all())
    assert [c.status for c in verified] == ["verified", "weak"]
    report = render_claims_report("bridge", verified, ledger.records(), written_by="test")
    run.write_file("report.md", report)
    return run


def test_an_untouched_run_passes(isolated_home: Path) -> None:
    run = build_run(isolated_home)
    result = runner.invoke(app, ["verify", run.id])
    assert result.exit_code == 0, result.output
    assert "every claim presented as verified holds" in result.output
    payload = json.loads(runner.invoke(app, ["verify", run.id, "--json"]).output)
    assert payload["ok"] and [c["rederived"] for c in payload["claims"]] == ["verified", "weak"]
    events = (run.dir / "run.log.jsonl").read_text()
    assert "assay verify:" in events


def _edit_quote(run: Run) -> None:
    path = run.dir / "claims.jsonl"
    path.write_text(path.read_text().replace("420 metres long.", "520 metres long.", 1))


def _alter_snapshot(run: Run) -> None:
    snapshot = run.dir / SourceLedger(run.dir).records()[0].snapshot
    snapshot.write_text(snapshot.read_text().replace("1931", "1932"))


def _cite_unfetched(run: Run) -> None:
    report = run.dir / "report.md"
    report.write_text(report.read_text() + "\nSee also <http://never-fetched.test/page>.\n")


def _promote_weak(run: Run) -> None:
    report = run.dir / "report.md"
    report.write_text(report.read_text().replace("(claim_002: weak)", "(claim_002: verified)"))


@pytest.mark.parametrize(
    ("tamper", "expected"),
    [
        (
            _edit_quote,
            "claim_001: quotes_located: evidence 0: quote not found",
        ),
        (
            _alter_snapshot,
            "claim_001: the report says verified, but it re-derives as needs_review: "
            "snapshot_intact: src_01: snapshot altered",
        ),
        (
            _cite_unfetched,
            "the report cites http://never-fetched.test/page, which the run never fetched",
        ),
        (
            _promote_weak,
            "claim_002: the report says verified, but it re-derives as weak: "
            "supported by one origin only",
        ),
    ],
    ids=["edited-quote", "altered-snapshot", "unfetched-url", "weak-called-verified"],
)
def test_tampering_is_caught(
    isolated_home: Path, tamper: Callable[[Run], None], expected: str
) -> None:
    run = build_run(isolated_home)
    tamper(run)
    result = runner.invoke(app, ["verify", run.id])
    assert result.exit_code == 4, result.output
    assert expected in " ".join(result.output.split())
    assert "Traceback" not in result.output


def test_the_table_shows_every_check_whole_and_no_markup_at_80_columns(
    isolated_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from assay.cli import output

    run = build_run(isolated_home)
    monkeypatch.setattr(output.console, "width", 80)
    result = runner.invoke(app, ["verify", run.id])
    assert result.exit_code == 0, result.output
    assert "[green]" not in result.output and "[/]" not in result.output
    assert all(len(line) <= 80 for line in result.output.splitlines())
    payload = json.loads(runner.invoke(app, ["verify", run.id, "--json"]).output)
    words = result.output.split()
    checks = [
        (name, c["passed"]) for claim in payload["claims"] for name, c in claim["checks"].items()
    ]
    assert len(checks) >= 10
    for name, passed in checks:
        assert ("✓" if passed else "✗") + name in words, name
