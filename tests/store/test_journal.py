"""Ledgers in memory with their files as journals: read once, followed, written in batches."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from assay.claims.engine import VerificationEngine
from assay.claims.judge import Verdict
from assay.redact import register_secrets
from assay.store import journal
from assay.store.claims import ClaimLedger, ClaimRecord
from assay.store.jsonl import read_jsonl
from assay.store.runs import RunStore


def _claim(number: int, text: str = "Alpha is 42 units tall.") -> ClaimRecord:
    return ClaimRecord(id=f"claim_{number:03d}", text=text, confidence="high", sourceIds=["src_01"])


def test_a_second_reader_sees_what_the_writer_appends_and_rewrites(tmp_path: Path) -> None:
    writer, reader = ClaimLedger(tmp_path, fsync=False), ClaimLedger(tmp_path, fsync=False)
    writer.append(_claim(1))
    assert [c.id for c in reader.claims()] == ["claim_001"]
    writer.append(_claim(2))
    assert reader.next_id() == "claim_003"
    writer.update([_claim(1).model_copy(update={"status": "weak"})])
    assert reader.get("claim_001") is not None
    assert reader.get("claim_001").status == "weak"  # type: ignore[union-attr]
    reader.append(_claim(3))  # the other way round: the writer sees it too
    assert [c.id for c in writer.claims()] == ["claim_001", "claim_002", "claim_003"]
    writer.stage([_claim(2).model_copy(update={"status": "weak"})])
    reader.append(_claim(4))
    writer.flush()  # keeps what the reader appended since
    assert [c.id for c in ClaimLedger(tmp_path).claims()] == [f"claim_00{n}" for n in range(1, 5)]


def test_a_torn_last_line_is_skipped_until_it_is_whole(tmp_path: Path) -> None:
    ledger = ClaimLedger(tmp_path, fsync=False)
    ledger.append(_claim(1))
    line = (tmp_path / "claims.jsonl").read_bytes()
    with (tmp_path / "claims.jsonl").open("ab") as handle:
        handle.write(line.replace(b"claim_001", b"claim_002")[:30])
    assert ledger.next_id() == "claim_002"
    ledger.append(_claim(2))  # ends the fragment first: both whole records are read
    assert [c.id for c in ledger.claims()] == ["claim_001", "claim_002"]
    assert read_jsonl(tmp_path / "claims.jsonl").bad_lines == [2]


@pytest.fixture
def writes(monkeypatch: pytest.MonkeyPatch) -> list[Path]:
    """The files ledgers replace (each an atomic write), in order."""
    replaced: list[Path] = []
    real = journal.atomic_write_bytes
    monkeypatch.setattr(
        journal,
        "atomic_write_bytes",
        lambda path, data, **kw: (replaced.append(path), real(path, data, **kw)),
    )
    return replaced


def test_staged_changes_are_written_together_at_flush(tmp_path: Path, writes: list[Path]) -> None:
    ledger = ClaimLedger(tmp_path, fsync=False)
    for number in (1, 2, 3):
        ledger.append(_claim(number))
    ledger.stage([_claim(n).model_copy(update={"status": "weak"}) for n in (1, 3)])
    on_disk = [r["status"] for r in read_jsonl(tmp_path / "claims.jsonl").records]
    assert on_disk == ["unverified"] * 3 and writes == []
    assert [c.status for c in ledger.claims()] == ["weak", "unverified", "weak"]
    ledger.flush()
    ledger.flush()  # nothing left to write
    assert len(writes) == 1
    on_disk = [r["status"] for r in read_jsonl(tmp_path / "claims.jsonl").records]
    assert on_disk == ["weak", "unverified", "weak"]


def test_memory_holds_what_the_file_holds_secrets_masked(tmp_path: Path) -> None:
    register_secrets(["sk-secret-123456"])
    ledger = ClaimLedger(tmp_path, fsync=False)
    ledger.append(_claim(1, "the key sk-secret-123456 leaked"))
    ledger.update([_claim(1, "still sk-secret-123456").model_copy(update={"status": "weak"})])
    assert "sk-secret" not in ledger.claims()[0].text
    assert ledger.claims()[0].text == read_jsonl(tmp_path / "claims.jsonl").records[0]["text"]


class _Supports:
    name = "supports"

    async def judge(self, claim: str, evidence: str) -> Verdict:
        return Verdict("SUPPORTS", "Alpha is 42 units tall.", confident=True)


def test_a_verify_pass_rewrites_claims_once_not_once_per_claim(
    tmp_path: Path, writes: list[Path]
) -> None:
    run = RunStore(tmp_path, fsync=False).create("t", "research", {})
    source = run.source_ledger.add(
        url="http://a.test/", final_url="http://a.test/", title="Alpha",
        text="Alpha is 42 units tall.", content_type="text/html",
        accessed_at="2026-11-29T00:00:00.000Z",
    )  # fmt: skip
    for number in range(1, 21):
        run.claim_ledger.append(_claim(number).model_copy(update={"source_ids": [source.id]}))
    checked = asyncio.run(VerificationEngine(run, _Supports()).verify_all())  # type: ignore[arg-type]
    assert len(checked) == 20 and {c.status for c in checked} == {"weak"}
    assert writes == [run.dir / "claims.jsonl"]
    statuses = {r["status"] for r in read_jsonl(run.dir / "claims.jsonl").records}
    assert statuses == {"weak"}
