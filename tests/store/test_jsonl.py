"""Durable appends: a killed writer never leaves a file that breaks reading."""

from __future__ import annotations

import random
import signal
import subprocess
import sys
import time
from pathlib import Path

from assay.store.claims import ClaimLedger
from assay.store.jsonl import append_jsonl, read_jsonl

WRITER = r"""
import sys
from pathlib import Path
from assay.events import ClaimCreated, WarningEvent
from assay.store.claims import ClaimLedger, ClaimRecord
from assay.store.eventlog import EventLog

run_dir = Path(sys.argv[1])
claims = ClaimLedger(run_dir, fsync=False)
log = EventLog(run_dir / "run.log.jsonl", fsync=False)
big = "x" * 300_000  # large records make a kill during write(2) likely
print("ready", flush=True)
n = 0
while True:
    n += 1
    claim_id = claims.next_id()
    claims.append(ClaimRecord(id=claim_id, text=f"claim {n} " + big * (n % 2),
                              confidence="high", sourceIds=["src_01"]))
    log.emit(ClaimCreated(id=claim_id, confidence="high", source_ids=["src_01"]))
    log.emit(WarningEvent(message=big * (n % 3 == 0)))
"""


def test_append_and_read_round_trip(tmp_path: Path) -> None:
    path = tmp_path / "x.jsonl"
    for i in range(3):
        append_jsonl(path, {"i": i, "text": "line\nbreak"})
    read = read_jsonl(path)
    assert [r["i"] for r in read.records] == [0, 1, 2]
    assert read.records[0]["text"] == "line\nbreak"
    assert read.problems == []


def test_torn_last_line_is_reported_and_the_next_append_stays_whole(tmp_path: Path) -> None:
    path = tmp_path / "x.jsonl"
    append_jsonl(path, {"i": 0})
    with path.open("ab") as handle:
        handle.write(b'{"i": 1, "te')
    read = read_jsonl(path)
    assert read.records == [{"i": 0}]
    assert read.torn_final_line
    assert "torn" in read.problems[0]

    append_jsonl(path, {"i": 2})
    read = read_jsonl(path)
    assert read.records == [{"i": 0}, {"i": 2}]
    assert not read.torn_final_line
    assert read.bad_lines == [2]


def test_missing_file_reads_empty(tmp_path: Path) -> None:
    assert read_jsonl(tmp_path / "nope.jsonl").records == []


def test_kill_9_at_random_moments_never_breaks_reading(tmp_path: Path) -> None:
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    rng = random.Random(20261129)
    kills = 8
    previous_count = 0
    for kill in range(kills):
        writer = subprocess.Popen(
            [sys.executable, "-c", WRITER, str(run_dir)], stdout=subprocess.PIPE, text=True
        )
        assert writer.stdout is not None
        assert writer.stdout.readline().strip() == "ready"
        # One random moment in each eighth of the first 0.15 s: the window is covered
        # evenly with fewer writers to start.
        time.sleep((kill + rng.random()) * 0.15 / kills)
        writer.send_signal(signal.SIGKILL)
        writer.wait()
        writer.stdout.close()
        for name in ("claims.jsonl", "run.log.jsonl"):
            read = read_jsonl(run_dir / name)  # must never raise
            assert all(isinstance(r, dict) for r in read.records)
        claims = ClaimLedger(run_dir).claims()  # every whole record still validates
        assert len(claims) >= previous_count
        previous_count = len(claims)
        ids = [c.id for c in claims]
        assert len(ids) == len(set(ids)), "a claim id was reused after a crash"
    events = read_jsonl(run_dir / "run.log.jsonl").records
    seqs = [e["seq"] for e in events]
    assert seqs == sorted(seqs) and len(seqs) == len(set(seqs))
    assert previous_count > kills  # the writers did get work done between kills
