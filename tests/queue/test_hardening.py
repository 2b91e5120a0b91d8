"""What a hostile or broken queue message can do to real workers: nothing but be dead-lettered.

A real redis-server and real ``assay worker`` processes (``queue_fixtures``). The questions are
answered from a one-document local index, so each run takes a fraction of a second. The
messages are put on Redis the way anyone who can write to it could, with dramatiq's own
client or raw commands, whatever assay would have sent.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.queue_fixtures import Start, needs_redis, stop, wait_for

pytestmark = [pytest.mark.queue, needs_redis]
QUEUE, MESSAGES = "assay:assay-batch", "assay:assay-batch.msgs"
DEAD, DEAD_MESSAGES = "assay:assay-batch.XQ", "assay:assay-batch.XQ.msgs"
LOCAL = {"ASSAY_SEARCH": "local"}
QUESTION = "When was the Halvorsen Lighthouse completed?"
GARBAGE = [b"\xff\xfe\x00 not UTF-8", b"{not json", b"[1, 2, 3]", b"null",
           b'{"actor_name": "assay_run_question"}', b'{"queue_name": 5, "args": {}}']  # fmt: skip


@pytest.fixture
def local_index(isolated_home: Path, tmp_path: Path) -> Path:
    from assay.gather.index import LocalIndex

    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "lighthouse.md").write_text(
        "# Halvorsen Lighthouse\n\nConstruction of the Halvorsen Lighthouse was completed "
        "in 1874. Its tower is 41 metres tall.\n"
    )
    with LocalIndex(isolated_home / "index.sqlite") as index:
        index.add_paths([docs])
    return isolated_home


def client(redis_url: str) -> Any:
    import redis

    return redis.Redis.from_url(redis_url)


def questions(path: Path, prefix: str, count: int = 5) -> Path:
    lines = [json.dumps({"id": f"{prefix}{n}", "question": QUESTION}) for n in range(count)]
    path.write_text("\n".join(lines) + "\n")
    return path


def submitter(home: Path, path: Path, redis_url: str, *flags: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "assay.cli", "batch", str(path), "--broker", redis_url, "--quiet",
         "--home", str(home), "--protocol", "ask", "--search", "local", *flags],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip


def interleave_garbage(redis_url: str, tag: str, expected: int) -> list[str]:
    """Once ``expected`` messages are queued, put a bad body before, between and after them."""
    redis = client(redis_url)
    wait_for(lambda: redis.llen(QUEUE) == expected, 30)
    queued = redis.lrange(QUEUE, 0, -1)
    garbage = [f"garbage-{tag}-{n}" for n in range(expected + 1)]
    for n, name in enumerate(garbage):
        redis.hset(MESSAGES, name, GARBAGE[n % len(GARBAGE)])
    order = [item for pair in zip(garbage, queued, strict=False) for item in pair] + [garbage[-1]]
    with redis.pipeline() as pipe:
        pipe.delete(QUEUE)
        pipe.rpush(QUEUE, *order)
        pipe.execute()
    return garbage


def finished(process: subprocess.Popen[str], timeout: float = 90) -> tuple[int, str]:
    try:
        _, err = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        process.kill()
        _, err = process.communicate()
        raise AssertionError(f"the batch never got all its rows: {err}") from None
    return process.returncode, err


def rows(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def nothing_left_unacknowledged(redis_url: str) -> None:
    redis = client(redis_url)
    held = {key: redis.smembers(key) for key in redis.keys("assay:__acks__.*")}
    assert not any(held.values()), held
    assert redis.llen(QUEUE) == 0 and redis.hlen(MESSAGES) == 0


def test_garbage_between_valid_jobs_is_dead_lettered_and_strands_none(
    local_index: Path, redis_url: str, workers: Start, tmp_path: Path
) -> None:
    first_batch = questions(tmp_path / "first.jsonl", "a")
    batch = submitter(local_index, first_batch, redis_url)
    garbage = interleave_garbage(redis_url, "first", 5)
    (worker,) = workers(1, 2, env=LOCAL)
    code, err = finished(batch)
    assert code == 0, err
    done = rows(tmp_path / "first.results.jsonl")
    assert sorted(r["id"] for r in done) == [f"a{n}" for n in range(5)]
    assert all(r["status"] == "done" for r in done), [r["reason"] for r in done]
    redis = client(redis_url)
    assert all(redis.zscore(DEAD, name) is not None for name in garbage)
    assert redis.hget(DEAD_MESSAGES, garbage[0]) == GARBAGE[0]  # kept as it came, to inspect
    nothing_left_unacknowledged(redis_url)

    # A restart: the dead letters stay, and a new worker meets the same mix as the first.
    stop(worker)
    second_batch = questions(tmp_path / "second.jsonl", "b")
    batch = submitter(local_index, second_batch, redis_url)
    more_garbage = interleave_garbage(redis_url, "second", 5)
    workers(1, 2, env=LOCAL)
    code, err = finished(batch)
    assert code == 0, err
    again = rows(tmp_path / "second.results.jsonl")
    assert sorted(r["id"] for r in again) == [f"b{n}" for n in range(5)]
    assert all(r["status"] == "done" for r in again), [r["reason"] for r in again]
    assert all(redis.zscore(DEAD, name) is not None for name in garbage + more_garbage)
    nothing_left_unacknowledged(redis_url)
    log = (local_index / "worker-0.log").read_text()
    assert "dead-lettered queue message garbage-first-0" in log


def test_a_message_cannot_make_a_worker_run_a_command_or_write_where_it_says(
    local_index: Path, redis_url: str, workers: Start, tmp_path: Path
) -> None:
    import dramatiq
    from dramatiq.brokers.redis import RedisBroker

    marker, stolen = tmp_path / "pwned", tmp_path / "attacker.results.jsonl"
    settings = {"home": str(local_index), "search": "mcp",
                "mcp_command": ["sh", "-c", f"id > {marker}"]}  # fmt: skip
    attacks = [
        {"job": {"id": "x", "question": QUESTION}, "protocol": "ask", "settings": settings,
         "results": str(stolen)},
        {"v": 1, "payload": json.dumps({"batch": "0" * 16, "job": {"id": "y", "question": "?"},
                                        "protocol": "ask"}), "sig": "0" * 64},
    ]  # fmt: skip
    broker = RedisBroker(url=redis_url, namespace="assay")  # type: ignore[no-untyped-call]
    sent = []
    for attack in attacks:
        message: dramatiq.Message[None] = dramatiq.Message(
            queue_name="assay-batch", actor_name="assay_run_question", args=(attack,), kwargs={},
            options={},
        )  # fmt: skip
        sent.append(broker.enqueue(message).options["redis_message_id"])
    broker.close()
    workers(1, 1, env=LOCAL)
    redis = client(redis_url)
    all_dead = lambda: all(redis.zscore(DEAD, i) is not None for i in sent)  # noqa: E731
    wait_for(lambda: marker.exists() or stolen.exists() or all_dead(), 30)
    assert not marker.exists(), marker.read_text()
    assert not stolen.exists()
    assert all_dead()
    reasons = [redis.get(f"assay:assay-batch.XQ.why:{i}") for i in sent]
    assert reasons[0] == b"not a signed assay envelope ({v, payload, sig})"
    assert reasons[1] is not None and reasons[1].startswith(b"bad signature")
    nothing_left_unacknowledged(redis_url)
    log = (local_index / "worker-0.log").read_text()
    assert all(f"dead-lettered queue message {i}" in log for i in sent), log


def test_a_batch_signed_with_another_key_ends_with_failed_rows_not_a_wait(
    local_index: Path, redis_url: str, workers: Start, tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:  # fmt: skip
    workers(1, 1, env=LOCAL)
    monkeypatch.setenv("ASSAY_QUEUE_KEY", "another-key-" + "9" * 40)  # the client's only
    path = questions(tmp_path / "q.jsonl", "k", 2)
    code, _ = finished(submitter(local_index, path, redis_url), 60)
    assert code == 1
    found = rows(tmp_path / "q.results.jsonl")
    assert [r["status"] for r in found] == ["failed", "failed"]
    assert all(r["reason"].startswith("a worker rejected the message: bad signature")
               for r in found), found  # fmt: skip


def test_the_worker_runs_with_its_own_settings_and_models(
    local_index: Path, redis_url: str, workers: Start, tmp_path: Path
) -> None:
    workers(1, 1, env=LOCAL)  # the worker searches its local index; it has no model
    path = questions(tmp_path / "q.jsonl", "m", 1)
    unreachable = ["--search", "searxng", "--searxng-url", "http://127.0.0.1:9/"]
    asked = submitter(local_index, path, redis_url, *unreachable, "--model", "openai:gpt-4o-mini")
    code, _ = finished(asked, 60)
    assert code == 1
    (refused,) = rows(tmp_path / "q.results.jsonl")
    assert refused["status"] == "failed"
    assert refused["reason"].startswith("model 'openai:gpt-4o-mini' is not one this worker runs")
    # Without the model: the client's search settings are not the worker's, and do not matter.
    code, err = finished(submitter(local_index, path, redis_url, *unreachable), 60)
    assert code == 0, err
    last = rows(tmp_path / "q.results.jsonl")[-1]
    assert last["status"] == "done" and "1874" in last["answer"]


def test_a_pacing_time_no_worker_wrote_stalls_nobody(redis_url: str) -> None:
    import asyncio
    import time

    from assay.queue.pacing import RedisDomainGate

    gate = RedisDomainGate(redis_url, prefix="assay:pace-test")
    redis = client(redis_url)

    async def hold(last: bytes) -> float:
        redis.set("assay:pace-test:lab.test:last", last)
        started = time.monotonic()
        async with gate.hold("lab.test", 0.2):
            return time.monotonic() - started

    def held_after(last: bytes) -> float:  # a stalled gate fails the test, not hangs it
        return asyncio.run(asyncio.wait_for(hold(last), 5))

    for planted in (b"1e18", b"inf", b"nan", b"not a time"):
        assert held_after(planted) < 1.0, planted
    seconds, micros = redis.time()
    now = seconds + micros / 1e6
    assert 0.1 < held_after(repr(now).encode()) < 1.0  # an honest one still paces
