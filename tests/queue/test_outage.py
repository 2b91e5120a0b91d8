"""A broker that goes away while a worker serves or a batch follows: one line, exit 8.

dramatiq's consumers log every failed reconnection and the next broker command raised a
traceback; now the worker (and the batch client) wait out a restart for as long as the
heartbeat timeout allows, then end with one line naming the broker.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from assay.cli import app
from assay.errors import UnavailableError
from tests.batch.test_batch import write_questions
from tests.queue_fixtures import free_port, needs_redis, wait_for

pytestmark = [pytest.mark.queue, needs_redis]


@pytest.fixture
def own_redis(tmp_path: Path) -> Iterator[tuple[str, Callable[[], None]]]:
    """A redis-server of this test's own, and the function that stops it."""
    import redis

    port = free_port()
    server = subprocess.Popen(
        ["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--save", "",
         "--appendonly", "no", "--dir", str(tmp_path)],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    url = f"redis://127.0.0.1:{port}/0"

    def answers() -> bool:
        try:
            return bool(redis.Redis.from_url(url).ping())
        except redis.ConnectionError:
            return False

    def stop() -> None:
        server.terminate()
        server.wait(10)

    wait_for(answers, 10)
    yield url, stop
    if server.poll() is None:
        stop()


def test_a_worker_whose_broker_goes_away_ends_with_one_line(
    own_redis: tuple[str, Callable[[], None]], queue_key: str
) -> None:
    url, stop_redis = own_redis
    with subprocess.Popen(
        [sys.executable, "-m", "assay.cli", "worker", "--broker", url, "--heartbeat-timeout", "1"],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
    ) as worker:  # fmt: skip
        assert worker.stderr is not None
        ready = worker.stderr.readline()
        assert ready.startswith("worker ready:"), ready
        stop_redis()
        try:
            said = ready + worker.communicate(timeout=60)[1]
        finally:
            worker.kill()
    assert worker.returncode == UnavailableError.exit_code, said
    assert "Traceback" not in said and "Consumer encountered" not in said
    errors = [line for line in said.splitlines() if line.startswith("error:")]
    port = url.rsplit(":", 1)[1].split("/")[0]
    assert len(errors) == 1 and f"lost the broker at 127.0.0.1:{port}" in errors[0], said
    assert said.splitlines()[-1] == errors[0]


def test_a_batch_whose_broker_goes_away_while_following_ends_with_one_line(
    own_redis: tuple[str, Callable[[], None]],
    queue_key: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from assay.queue import submit

    url, stop_redis = own_redis
    follow = submit.follow

    def follow_without_a_broker(*args: Any, **kwargs: Any) -> Any:
        stop_redis()  # the questions are enqueued; no worker has taken them
        return follow(*args, **kwargs)

    monkeypatch.setattr(submit, "follow", follow_without_a_broker)
    monkeypatch.setattr(submit, "BROKER_PATIENCE", 0.5, raising=False)
    questions = write_questions(tmp_path / "q.jsonl")
    result = CliRunner().invoke(app, ["batch", str(questions), "--broker", url, "--quiet"])
    assert result.exit_code == UnavailableError.exit_code, result.output
    assert "Traceback" not in result.output
    [line] = [line for line in result.output.splitlines() if line.startswith("error:")]
    assert "lost the broker at 127.0.0.1:" in line
    assert "the questions stay queued: run this batch again" in line
