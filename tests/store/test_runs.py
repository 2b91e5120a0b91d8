"""Run directories: ids, resolution, status, atomic rewrites."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest

from assay.errors import AmbiguousRunError, RunNotFoundError
from assay.store.runs import RunStore, load_info
from assay.store.sources import SourceLedger, snapshot_text, text_sha256


def test_run_ids_are_sortable_and_safe(tmp_path: Path) -> None:
    store = RunStore(tmp_path, fsync=False)
    first = store.create("What is RAG? ../../etc", "research", {})
    second = store.create("What is RAG? ../../etc", "research", {})
    for run in (first, second):
        assert re.fullmatch(r"\d{8}-\d{6}-[a-z0-9-]+", run.id)
    assert first.id != second.id
    assert store.ids() == sorted([first.id, second.id])
    info = json.loads((first.dir / "run.json").read_text())
    assert info["status"] == "running" and info["topic"] == "What is RAG? ../../etc"
    assert (first.dir / "snapshots").is_dir()


def test_two_runs_of_one_topic_started_at_once_get_two_directories(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import assay.store.runs as runs

    # Another process (a second worker thread) makes the first candidate directory between
    # this store's choice of an id and its mkdir, as two runs of one question in one second do.
    plain_child = runs.safe_child
    raced: list[Path] = []

    def racing_child(root: Path, name: str) -> Path:
        child = plain_child(root, name)
        if not raced:
            child.mkdir()
            raced.append(child)
        return child

    monkeypatch.setattr(runs, "safe_child", racing_child)
    run = RunStore(tmp_path, fsync=False).create("Same question?", "ask", {})
    assert run.dir != raced[0] and run.id == f"{raced[0].name}-2"
    assert (run.dir / "run.json").is_file()


def test_prefix_resolution(tmp_path: Path) -> None:
    store = RunStore(tmp_path, fsync=False)
    run = store.create("alpha", "research", {})
    store.create("beta", "research", {})
    assert store.open(run.id).id == run.id
    assert store.resolve(run.id[:-3]).name == run.id  # a unique prefix
    assert store.resolve(run.id.upper()).name == run.id
    with pytest.raises(AmbiguousRunError):
        store.resolve(run.id[:8])
    with pytest.raises(RunNotFoundError):
        store.resolve("nothing-like-this")
    with pytest.raises(RunNotFoundError):
        store.resolve("")


def test_dead_process_shows_as_interrupted(tmp_path: Path) -> None:
    store = RunStore(tmp_path, fsync=False)
    run = store.create("t", "research", {})
    assert run.info.effective_status() == "running"
    run.info.pid = 2**22 + 12345  # above pid_max: no such process
    run.save_info()
    assert load_info(run.dir).effective_status() == "interrupted"
    run.finish("done")
    assert load_info(run.dir).effective_status() == "done"


def test_rewrites_are_atomic_and_leave_no_temp_files(tmp_path: Path) -> None:
    run = RunStore(tmp_path, fsync=False).create("t", "research", {})
    run.write_file("report.md", "first")
    run.write_file("report.md", "second")
    assert (run.dir / "report.md").read_text() == "second"
    assert not [p for p in os.listdir(run.dir) if p.endswith(".tmp")]


def test_snapshot_front_matter_and_hash(tmp_path: Path) -> None:
    run = RunStore(tmp_path, fsync=False).create("t", "research", {})
    ledger = SourceLedger(run.dir, fsync=False)
    text = "Body text.\n---\nwith a rule inside"
    record = ledger.add(
        url="http://a.test/x?utm=1",
        final_url="http://a.test/x",
        title='A "quoted" title',
        text=text,
        content_type="text/html",
        accessed_at="2026-11-29T00:00:00.000Z",
    )
    assert record.id == "src_01" and record.domain == "a.test"
    raw = (run.dir / record.snapshot).read_text()
    assert raw.startswith("---\nurl: ")
    assert 'title: "A \\"quoted\\" title"' in raw
    assert snapshot_text(raw) == text == ledger.read_snapshot(record)
    assert record.sha256 == text_sha256(text)
    second = ledger.add(
        url="http://b.test/",
        final_url="http://b.test/",
        title=None,
        text="b",
        content_type="text/plain",
        accessed_at="2026-11-29T00:00:00.000Z",
    )
    assert second.id == "src_02"
    assert ledger.by_url("http://a.test/x") == record
