"""chain.jsonl: appended with each record, continued by a reopened run, tolerant of a torn
last line, and blind to status-only rewrites."""

from __future__ import annotations

from pathlib import Path

from assay.claims.recheck import recheck_run
from assay.store.chain import CHAIN_FILE, HashChain
from assay.store.claims import ClaimLedger, ClaimRecord, Evidence
from assay.store.runs import RunStore
from assay.store.sources import SourceLedger

TEXT = "The Zorbel bridge is 420 metres long."


def add_source(run_dir: Path, number: int) -> str:
    return (
        SourceLedger(run_dir, fsync=False)
        .add(
            url=f"http://site{number}.test/page",
            final_url=f"http://site{number}.test/page",
            title=None,
            text=TEXT,
            content_type="text/html",
            accessed_at="2026-11-30T00:00:00Z",
        )
        .id
    )


def claim(number: int, source_id: str) -> ClaimRecord:
    return ClaimRecord(
        id=f"claim_{number:03d}", text=TEXT, confidence="high", sourceIds=[source_id]
    )


def test_a_reopened_run_continues_the_chain(isolated_home: Path) -> None:
    store = RunStore(isolated_home, fsync=False)
    run = store.create("bridge", "test", {})
    ClaimLedger(run.dir, fsync=False).append(claim(1, add_source(run.dir, 1)))
    reopened = store.open(run.id)  # what `assay resume` does before going on
    ClaimLedger(reopened.dir, fsync=False).append(claim(2, add_source(reopened.dir, 2)))
    reopened.write_file("report.md", "# Report\n")
    read = HashChain(run.dir).read()
    assert read.breaks == [] and read.warnings == []
    assert [e.seq for e in read.entries] == [1, 2, 3, 4, 5]
    assert [(e.kind, e.id) for e in read.entries] == [
        ("source", "src_01"),
        ("claim", "claim_001"),
        ("source", "src_02"),
        ("claim", "claim_002"),
        ("file", "report.md"),
    ]
    assert recheck_run(run.dir).ok


def test_a_torn_last_entry_is_skipped_and_the_chain_goes_on(isolated_home: Path) -> None:
    run = RunStore(isolated_home, fsync=False).create("bridge", "test", {})
    add_source(run.dir, 1)
    with (run.dir / CHAIN_FILE).open("ab") as handle:
        handle.write(b'{"seq":2,"kind":"claim","id":"claim_0')  # a writer killed mid-line
    ClaimLedger(run.dir, fsync=False).append(claim(1, "src_01"))
    read = HashChain(run.dir).read()
    assert read.breaks == []
    assert [e.seq for e in read.entries] == [1, 2]
    assert read.warnings == ["chain.jsonl: line 2 is not a JSON record and was skipped"]


def test_status_rewrites_add_nothing_and_evidence_rewrites_are_chained(
    isolated_home: Path,
) -> None:
    run = RunStore(isolated_home, fsync=False).create("bridge", "test", {})
    ledger = ClaimLedger(run.dir, fsync=False)
    ledger.append(claim(1, add_source(run.dir, 1)))
    chain = HashChain(run.dir)
    before = len(chain.read().entries)
    ledger.rewrite([claim(1, "src_01").model_copy(update={"status": "needs_review"})])
    assert len(chain.read().entries) == before
    evidence = Evidence(sourceId="src_01", quote=TEXT, start=0, end=len(TEXT))
    ledger.rewrite([claim(1, "src_01").model_copy(update={"evidence": [evidence]})])
    entries = chain.read().entries
    assert len(entries) == before + 1 and entries[-1].id == "claim_001"
    assert recheck_run(run.dir).ok


def test_a_long_chain_links_across_the_tail_window(isolated_home: Path) -> None:
    run = RunStore(isolated_home, fsync=False).create("bridge", "test", {})
    ledger = ClaimLedger(run.dir, fsync=False)
    source_id = add_source(run.dir, 1)
    for number in range(1, 61):  # ~60 × 300 bytes: well past the 8 KB tail read
        ledger.append(claim(number, source_id))
    read = HashChain(run.dir).read()
    assert read.breaks == [] and len(read.entries) == 61


def test_a_directory_without_a_chain_is_never_half_chained(tmp_path: Path) -> None:
    """Ledgers opened on a run made before the chain existed leave it unchained."""
    add_source(tmp_path, 1)
    ClaimLedger(tmp_path, fsync=False).append(claim(1, "src_01"))
    assert not (tmp_path / CHAIN_FILE).exists()
