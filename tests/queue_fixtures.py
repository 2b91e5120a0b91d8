"""Pytest plugin: a real redis-server (Debian's) on a loopback port, and real ``assay worker``s.

- ``redis_url``: one redis-server per test module, no persistence, bound to 127.0.0.1.
- ``queue_key``: ASSAY_QUEUE_KEY set for this test (the batch client and the workers it starts
  inherit it), as every deployment must; its value is returned.
- ``workers``: ``start(count, threads, env=...)`` starts ``assay worker`` processes on a flushed
  database with this test's ASSAY_HOME and ``env`` on top (a worker's search, allow-list...
  are its own configuration, never the message's); each one's output goes to
  ``ASSAY_HOME/worker-N.log``. They are stopped (SIGTERM) at the end of the test.

The tests that use them are skipped, saying why, when redis-server is not installed.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest

HEARTBEAT = "2"
TEST_QUEUE_KEY = "test-queue-key-" + "7" * 40
needs_redis = pytest.mark.skipif(
    shutil.which("redis-server") is None,
    reason="redis-server is not installed (apt-get install redis-server; CI installs it)",
)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture(scope="module")
def redis_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    import redis

    port = free_port()
    folder = tmp_path_factory.mktemp("redis")
    server = subprocess.Popen(
        ["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--save", "",
         "--appendonly", "no", "--dir", str(folder)],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    url = f"redis://127.0.0.1:{port}/0"
    client = redis.Redis.from_url(url)

    def answers() -> bool:
        try:
            return bool(client.ping())
        except redis.ConnectionError:
            return False

    # A server slow to start (a loaded machine) is waited for, and one that never answers
    # fails here, not later as a batch that cannot reach its broker.
    wait_for(answers, timeout=30)
    yield url
    server.terminate()
    server.wait(10)


@pytest.fixture
def queue_key(monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setenv("ASSAY_QUEUE_KEY", TEST_QUEUE_KEY)
    return TEST_QUEUE_KEY


Start = Callable[..., list[subprocess.Popen[bytes]]]


@pytest.fixture
def workers(redis_url: str, isolated_home: Path, queue_key: str) -> Iterator[Start]:
    import redis

    redis.Redis.from_url(redis_url).flushdb()
    started: list[subprocess.Popen[bytes]] = []
    logs: list[Any] = []

    def start(
        count: int, threads: int = 2, env: Mapping[str, str] | None = None
    ) -> list[subprocess.Popen[bytes]]:
        for _ in range(count):
            log = (isolated_home / f"worker-{len(started)}.log").open("wb")
            logs.append(log)
            started.append(subprocess.Popen(
                [sys.executable, "-m", "assay.cli", "worker", "--broker", redis_url,
                 "--threads", str(threads), "--heartbeat-timeout", HEARTBEAT],
                stdout=log, stderr=subprocess.STDOUT, env={**os.environ, **(env or {})},
            ))  # fmt: skip
        return started[-count:]

    yield start
    stop(*started)
    for log in logs:
        log.close()


def stop(*processes: subprocess.Popen[bytes]) -> None:
    """SIGTERM, as an operator stops a worker; SIGKILL if it has not ended in 20 s. All
    are asked at once, then waited for: each takes seconds to wind down its threads, and
    one after the other those seconds added up (11 s for three workers)."""
    for process in processes:
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)
    deadline = time.monotonic() + 20
    for process in processes:
        try:
            process.wait(max(0.0, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def wait_for(probe: Callable[[], Any], timeout: float = 60.0) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = probe()
        if value:
            return value
        time.sleep(0.05)
    raise AssertionError("timed out waiting")
