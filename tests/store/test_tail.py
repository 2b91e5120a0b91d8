"""``store.tail``: the one follower of a run's JSONL files, and the TUI and the web SSE
stream that follow the event log through it."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

from assay.store.atomic import atomic_write_text
from assay.store.tail import FileState, JsonlTail, file_state
from assay.tui.follow import RunWatcher
from assay.web.sse import event_stream


def line(seq: int, text: str = "") -> str:
    return json.dumps({"seq": seq, "type": "warning", "data": {"message": text or f"e{seq}"}})


def write(path: Path, *lines: str) -> None:
    with path.open("a", encoding="utf-8") as handle:
        handle.write("".join(lines))


def test_a_partial_last_line_is_read_once_it_is_whole(tmp_path: Path) -> None:
    path = tmp_path / "log.jsonl"
    tail = JsonlTail(path)
    assert tail.read_new() == [] and not tail.torn  # no file yet
    whole, second = line(0), line(1)
    write(path, whole + "\n", second[:9])
    assert [r["seq"] for r in tail.read_new()] == [0]
    assert tail.torn
    assert tail.read_new() == []  # still mid-append
    write(path, second[9:] + "\n")
    assert [r["seq"] for r in tail.read_new()] == [1]
    assert not tail.torn and tail.bad_lines == []


def test_an_atomic_rewrite_is_read_again_from_its_first_line(tmp_path: Path) -> None:
    path = tmp_path / "log.jsonl"
    write(path, line(0) + "\n", line(1) + "\n")
    tail = JsonlTail(path)
    assert [r["seq"] for r in tail.read_new()] == [0, 1] and not tail.rewritten
    # replaced by a longer file: its size alone would not tell that it is another file
    atomic_write_text(path, "".join(line(n, "x" * 40) + "\n" for n in range(3)), fsync=False)
    again = tail.read_new()
    assert tail.rewritten
    assert [(r["seq"], r["data"]["message"]) for r in again] == [(n, "x" * 40) for n in range(3)]
    assert tail.bad_lines == []
    write(path, line(3) + "\n")
    assert [r["seq"] for r in tail.read_new()] == [3] and not tail.rewritten


def test_a_cut_file_is_read_again_and_bad_lines_are_named(tmp_path: Path) -> None:
    path = tmp_path / "log.jsonl"
    write(path, line(0) + "\n", line(1) + "\n", line(2) + "\n")
    tail = JsonlTail(path)
    tail.read_new()
    path.write_text(line(0) + "\nnot json\n", encoding="utf-8")  # same inode, shorter
    assert [r["seq"] for r in tail.read_new()] == [0]
    assert tail.rewritten and tail.bad_lines == [2]


def test_file_state_changes_with_a_replacement(tmp_path: Path) -> None:
    path = tmp_path / "run.json"
    assert file_state(path) is None
    atomic_write_text(path, "{}", fsync=False)
    before = file_state(path)
    atomic_write_text(path, "{}", fsync=False)
    after = file_state(path)
    assert isinstance(before, FileState) and before != after


def test_the_tui_shows_each_event_of_a_replaced_log_once(tmp_path: Path) -> None:
    log = tmp_path / "run.log.jsonl"
    write(log, line(0) + "\n", line(1) + "\n")
    watcher = RunWatcher(tmp_path)
    assert [r["seq"] for r in watcher.poll().records] == [0, 1]
    atomic_write_text(log, "".join(line(n) + "\n" for n in range(4)), fsync=False)
    assert [r["seq"] for r in watcher.poll().records] == [2, 3]


def stream(run_dir: Path, after: int, change: Any) -> list[int]:
    """The seqs an SSE stream sends; ``change`` runs after the first poll, and the run
    stops running after the second."""
    polls = {"n": 0}

    def running() -> bool:
        polls["n"] += 1
        if polls["n"] == 2:
            change()
        return polls["n"] < 3

    async def collect() -> list[int]:
        sent = []
        async for message in event_stream(run_dir, after, running, poll=0.0):
            if message.startswith("id: "):
                sent.append(int(message.split("\n", 1)[0][4:]))
        return sent

    return asyncio.run(collect())


def test_the_sse_stream_waits_for_a_partial_line(tmp_path: Path) -> None:
    log = tmp_path / "run.log.jsonl"
    write(log, line(0) + "\n", line(1)[:7])
    assert stream(tmp_path, -1, lambda: write(log, line(1)[7:] + "\n")) == [0, 1]


def test_the_sse_stream_follows_a_replaced_log_without_repeats(tmp_path: Path) -> None:
    log = tmp_path / "run.log.jsonl"
    write(log, line(0, "a" * 30) + "\n", line(1, "a" * 30) + "\n")

    def replace() -> None:  # a longer file whose third line spans the old end of file
        atomic_write_text(log, "".join(line(n) + "\n" for n in range(4)), fsync=False)

    assert stream(tmp_path, -1, replace) == [0, 1, 2, 3]
