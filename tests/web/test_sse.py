"""SSE over a real loopback socket: a client that drops mid-run and reconnects with
Last-Event-ID receives every event of the run exactly once."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx2

from assay.lab import Lab
from assay.store.jsonl import read_jsonl
from assay.web.app import ServerConfig, create_app
from assay.web.testing import serve_in_thread
from tests.web.test_api import TOPIC, lab_settings


def read_events(
    client: httpx2.Client, url: str, headers: dict[str, str], stop_after: int | None
) -> tuple[list[dict[str, Any]], bool]:
    """(records read, whether the server ended the stream); drops after ``stop_after``."""
    records: list[dict[str, Any]] = []
    with client.stream("GET", url, headers=headers) as response:
        assert response.status_code == 200
        assert response.headers["content-type"].startswith("text/event-stream")
        for line in response.iter_lines():
            if line.startswith("event: end"):
                return records, True
            if line.startswith("data: "):
                records.append(json.loads(line[6:]))
                if stop_after is not None and len(records) >= stop_after:
                    return records, False  # leaving the block closes the connection
    return records, False


def test_a_reconnecting_client_gets_every_event_exactly_once(lab: Lab, isolated_home: Path) -> None:
    app = create_app(ServerConfig(lab_settings(lab, isolated_home)))
    with serve_in_thread(app) as base, httpx2.Client(base_url=base, timeout=30) as client:
        run_id = client.post("/api/v1/runs", json={"topic": TOPIC}).json()["id"]
        url = f"/api/v1/runs/{run_id}/events"
        first, ended = read_events(client, url, {}, stop_after=3)
        assert not ended and "run.finished" not in [r["type"] for r in first]
        last_id = str(first[-1]["seq"])
        rest, ended = read_events(client, url, {"Last-Event-ID": last_id}, stop_after=None)
        assert ended
    log = read_jsonl(isolated_home / "runs" / run_id / "run.log.jsonl").records
    seqs = [r["seq"] for r in first + rest]
    assert seqs == [r["seq"] for r in log] == list(range(len(log)))
    assert (first + rest)[-1]["type"] == "run.finished"
    assert [r["data"] for r in first + rest] == [r["data"] for r in log]
