"""chain.jsonl: opened by its header, appended with each record (run.json, sources, claims,
events, files), continued by a reopened run, tolerant of a torn last line, and appended to
by a rewrite only when it changes a record."""

from __future__ import annotations

from pathlib import Path

from assay.claims.recheck import recheck_run
from assay.events import PhaseStarted
from assay.redact import register_secrets
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
    assert [e.seq for e in read.entries] == [1, 2, 3, 4, 5, 6, 7]
    assert read.header == {"format": "2", "writer": "assay 0.1.0"}
    assert [(e.kind, e.id) for e in read.entries] == [
        ("chain", "format"),
        ("run", "run.json"),
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
    assert [e.seq for e in read.entries] == [1, 2, 3, 4]  # header, run.json, source, claim
    assert read.warnings == ["chain.jsonl: line 4 is not a JSON record and was skipped"]


def test_a_rewrite_is_chained_when_it_changes_a_claim_and_only_then(
    isolated_home: Path,
) -> None:
    run = RunStore(isolated_home, fsync=False).create("bridge", "test", {})
    ledger = ClaimLedger(run.dir, fsync=False)
    ledger.append(claim(1, add_source(run.dir, 1)))
    chain = HashChain(run.dir)
    before = len(chain.read().entries)
    ledger.rewrite([claim(1, "src_01")])
    assert len(chain.read().entries) == before  # nothing changed: nothing chained
    ledger.rewrite([claim(1, "src_01").model_copy(update={"status": "needs_review"})])
    evidence = Evidence(sourceId="src_01", quote=TEXT, start=0, end=len(TEXT))
    ledger.rewrite([claim(1, "src_01").model_copy(update={"evidence": [evidence]})])
    entries = chain.read().entries
    assert len(entries) == before + 2 and {e.id for e in entries[-2:]} == {"claim_001"}
    assert recheck_run(run.dir).ok


def test_events_and_annotations_are_chained(isolated_home: Path) -> None:
    run = RunStore(isolated_home, fsync=False).create("bridge", "test", {})
    run.events.emit(PhaseStarted(phase="gather"))
    source_id = add_source(run.dir, 1)
    SourceLedger(run.dir, fsync=False).annotate(source_id, relevance={"relevant": True})
    entries = HashChain(run.dir).read().entries
    assert [(e.kind, e.id) for e in entries[2:]] == [
        ("event", "0"),
        ("source", "src_01"),
        ("source", "src_01"),
    ]
    assert recheck_run(run.dir).ok


def test_a_secret_in_a_url_is_masked_alike_in_every_file_and_its_chain(
    isolated_home: Path,
) -> None:
    """Lines, snapshot headers and reports are masked as they are written: the chain holds
    what the files hold, so an honest run that met a key still verifies."""
    secret = "sk-test-0123456789"
    register_secrets([secret])
    run = RunStore(isolated_home, fsync=False).create("bridge", "test", {})
    url = f"http://site.test/page?key={secret}"
    SourceLedger(run.dir, fsync=False).add(
        url=url, final_url=url, title=secret, text=TEXT, content_type="text/html",
        accessed_at="2026-11-30T00:00:00Z",
    )  # fmt: skip
    run.write_file("report.md", f"# Report\n\nSee <{url}>.\n")
    run.info.reason = f"a provider said: bad key {secret}"
    run.save_info()
    for path in run.dir.rglob("*"):
        assert path.is_dir() or secret not in path.read_text()
    result = recheck_run(run.dir)
    assert result.ok, result.failures


def test_a_long_chain_links_across_the_tail_window(isolated_home: Path) -> None:
    run = RunStore(isolated_home, fsync=False).create("bridge", "test", {})
    ledger = ClaimLedger(run.dir, fsync=False)
    source_id = add_source(run.dir, 1)
    for number in range(1, 61):  # ~60 × 300 bytes: well past the 8 KB tail read
        ledger.append(claim(number, source_id))
    read = HashChain(run.dir).read()
    assert read.breaks == [] and len(read.entries) == 63  # with the header and run.json


def test_a_directory_without_a_chain_is_never_half_chained(tmp_path: Path) -> None:
    """Ledgers opened on a run made before the chain existed leave it unchained."""
    add_source(tmp_path, 1)
    ClaimLedger(tmp_path, fsync=False).append(claim(1, "src_01"))
    assert not (tmp_path / CHAIN_FILE).exists()
