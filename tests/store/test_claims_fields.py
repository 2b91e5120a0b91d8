"""A claim's ``relevance`` and ``stated_as`` are typed fields of its record (issue 27);
lines written before they were (the same keys as untyped extras, or none) read into them
and are written back as they were, so the hash chain of a run made by an earlier version
still verifies, after a rewrite of its claims too."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from assay.cli import app
from assay.store.chain import HashChain, record_parts
from assay.store.claims import ClaimLedger, ClaimRecord, RecordedRelevance

runner = CliRunner()

BASE: dict[str, Any] = {
    "id": "claim_001",
    "text": "The Halvorsen Lighthouse is 42 m tall.",
    "confidence": "high",
    "sourceIds": ["src_001"],
    "reason": "",
    "status": "unverified",
    "evidence": [],
    "checks": {},
    "created_by": "extractive",
    "status_reason": "",
    "verified_by": None,
}
OLD_LINES: list[dict[str, Any]] = [
    BASE,  # written without either key
    BASE | {"relevance": {"score": 0.81, "method": "meaning-v1", "relevant": True}},
    BASE
    | {
        "relevance": {"score": 0.2, "method": "lexical-v1", "relevant": False, "target": "Who?"},
        "stated_as": "It is 42 m tall.",
    },
    BASE | {"relevance": {"score": 0.5, "method": "meaning-v1"}},  # no verdict recorded
    BASE | {"relevance": {"relevant": True, "target": "Who?"}},  # no score either
]


@pytest.mark.parametrize("line", OLD_LINES)
def test_an_old_line_reads_into_the_fields_and_is_written_back_as_it_was(
    line: dict[str, Any],
) -> None:
    claim = ClaimRecord.model_validate(line)
    assert "relevance" not in (claim.model_extra or {})
    assert "stated_as" not in (claim.model_extra or {})
    recorded = line.get("relevance")
    if recorded is None:
        assert claim.relevance is None
    else:
        assert isinstance(claim.relevance, RecordedRelevance)
        assert claim.relevance.score == recorded.get("score", 0.0)
        assert claim.relevance.method == recorded.get("method", "")
        assert claim.relevance.relevant is recorded.get("relevant")
        assert claim.relevance.target == recorded.get("target", "")
    assert claim.stated_as == line.get("stated_as")
    assert claim.judged_text == line.get("stated_as", line["text"])
    assert claim.to_json() == line
    assert claim.chain_parts() == record_parts(line)


def test_other_extra_keys_still_round_trip() -> None:
    line = BASE | {"escalated_from": "run-1"}
    assert ClaimRecord.model_validate(line).to_json() == line


def _lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(text) for text in path.read_text().splitlines() if text.strip()]


def _verify(run_dir: Path) -> tuple[int, str]:
    result = runner.invoke(app, ["verify", run_dir.name])
    return result.exit_code, " ".join(result.output.split())


def _as_old_version(run_dir: Path) -> list[dict[str, Any]]:
    """Rewrite the run's claims as an earlier assay wrote them: ``relevance`` and
    ``stated_as`` as plain keys on some lines, neither on others, each line chained with a
    digest of its fields as the line holds them."""
    claims = _lines(run_dir / "claims.jsonl")
    assert len(claims) >= 3
    old: list[dict[str, Any]] = []
    for number, claim in enumerate(claims):
        line = {k: v for k, v in claim.items() if k not in ("relevance", "stated_as")}
        if number % 3 == 1:
            line["relevance"] = {"score": 0.7, "method": "meaning-v1", "relevant": True}
        elif number % 3 == 2:
            line["relevance"] = {
                "score": 0.3,
                "method": "lexical-v1",
                "relevant": False,
                "target": "What is it?",
            }
            line["stated_as"] = "It is tall."
        old.append(line)
    (run_dir / "claims.jsonl").write_text("".join(json.dumps(c) + "\n" for c in old))
    chain = HashChain(run_dir, fsync=False)
    for line in old:
        chain.append("claim", line["id"], record_parts(line))
    return old


@pytest.fixture
def old_run(lab_research_run: Path, isolated_home: Path) -> Path:
    target = isolated_home / "runs" / lab_research_run.name
    shutil.copytree(lab_research_run, target)
    return target


def test_a_run_written_now_records_typed_relevance_and_verifies(old_run: Path) -> None:
    claims = ClaimLedger(old_run, fsync=False).claims()
    assert claims and all(isinstance(c.relevance, RecordedRelevance) for c in claims)
    assert all("relevance" not in (c.model_extra or {}) for c in claims)
    code, output = _verify(old_run)
    assert code == 0, output


def test_a_run_written_by_an_earlier_version_verifies(old_run: Path) -> None:
    old = _as_old_version(old_run)
    code, output = _verify(old_run)
    assert code == 0, output
    # the ledger reads the old lines into the fields
    claims = ClaimLedger(old_run, fsync=False).claims()
    assert claims[0].relevance is None and claims[0].stated_as is None
    assert claims[2].relevance is not None and claims[2].relevance.target == "What is it?"
    assert claims[2].stated_as == "It is tall."
    assert [c.to_json() for c in claims] == old


def test_an_old_run_still_verifies_after_one_claim_is_rewritten(old_run: Path) -> None:
    """A flush re-dumps every claim but chains only the changed one (a rescore, as a
    resumed research run stages): the untouched old lines must come out as they were."""
    old = _as_old_version(old_run)
    ledger = ClaimLedger(old_run, fsync=False)
    first = ledger.claims()[1]
    assert first.relevance is not None
    rescored = first.relevance.model_copy(update={"score": 0.9})
    ledger.stage([first.model_copy(update={"relevance": rescored})])
    ledger.flush()
    written = _lines(old_run / "claims.jsonl")
    assert written[1]["relevance"]["score"] == 0.9
    assert [c for n, c in enumerate(written) if n != 1] == [c for n, c in enumerate(old) if n != 1]
    code, output = _verify(old_run)
    assert code == 0, output
