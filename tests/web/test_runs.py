"""The server's runs work outside its event loop: a run's synchronous work (parsing,
indexing, scoring, done between its awaits) never holds up a request."""

from __future__ import annotations

import asyncio
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from assay.config import Settings, load_settings
from assay.gather import reader
from assay.gather.extract import extract
from assay.lab import Lab
from assay.protocols import served
from assay.protocols.launch import StartRun
from assay.protocols.runner import execute, start_run
from assay.web.app import ServerConfig, create_app
from assay.web.runs import RunManager
from tests.web.test_api import TOPIC, api_client, lab_settings, run_async, wait_done

BLOCK_S = 1.5
"""How long each fake run works without an await once its run exists."""
ANSWERED_S = BLOCK_S * 2 / 3
"""A request answered within this did not wait for a run's synchronous work (which takes
BLOCK_S). A third of it flaked in a fresh clone beside the suite's other workers: a POST
took 0.61 s, the first to import what a run needs."""


async def blocking_protocol(
    request: StartRun, settings: Settings, listener: object = None, **_: object
) -> object:
    context = start_run(settings, request.topic, "research")
    time.sleep(BLOCK_S)  # noqa: ASYNC251 - synchronous work, as parsing and indexing are

    async def body() -> None:
        await asyncio.sleep(0.05)  # the run's first await after its synchronous start

    return await execute(context, body)


def test_a_post_answers_while_the_runs_do_synchronous_work(
    isolated_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(served, "call_protocol", blocking_protocol)
    app = create_app(ServerConfig(load_settings(home=isolated_home), max_runs=3))

    async def scenario() -> None:
        async with api_client(app) as client:

            async def post() -> tuple[float, str]:
                started = time.perf_counter()
                answer = await client.post("/api/v1/runs", json={"topic": TOPIC})
                assert answer.status_code == 202, answer.text
                return time.perf_counter() - started, answer.json()["id"]

            answers = await asyncio.gather(post(), post(), post())
            assert max(took for took, _ in answers) < ANSWERED_S, answers
            listed = time.perf_counter()
            assert len((await client.get("/api/v1/runs")).json()) == 3
            assert time.perf_counter() - listed < ANSWERED_S  # the runs still work
            for _, run_id in answers:
                assert (await wait_done(client, run_id))["status"] == "done"

    run_async(scenario)


def test_a_cancel_during_a_runs_synchronous_work_interrupts_it(
    isolated_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(served, "call_protocol", blocking_protocol)
    app = create_app(ServerConfig(load_settings(home=isolated_home)))

    async def scenario() -> None:
        async with api_client(app) as client:
            run_id = (await client.post("/api/v1/runs", json={"topic": TOPIC})).json()["id"]
            assert (await client.post(f"/api/v1/runs/{run_id}/cancel")).status_code == 202
            assert (await wait_done(client, run_id))["status"] == "interrupted"

    run_async(scenario)


CLOSING_S = 1.0
"""How long the run's thread goes on after its run recorded its end."""


def test_a_run_that_ended_but_still_closes_refuses_a_cancel_and_waits_to_resume(
    lab: Lab, isolated_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    app = create_app(ServerConfig(lab_settings(lab, isolated_home)))
    runs: RunManager = app.state.runs
    cancelled = threading.Event()

    def slow_extract(*args: Any) -> Any:  # a thread job the cancelled run was waiting for
        if not cancelled.is_set():
            cancelled.set()
            for worker in list(runs.workers.values()):
                worker.cancel()
            time.sleep(CLOSING_S)  # the run records its end meanwhile; its thread waits
        return extract(*args)

    monkeypatch.setattr(reader, "extract", slow_extract)

    async def scenario() -> None:
        async with api_client(app) as client:
            run_id = (await client.post("/api/v1/runs", json={"topic": TOPIC})).json()["id"]
            assert (await wait_done(client, run_id))["status"] == "interrupted"
            assert runs.is_active(run_id)  # what this test is about: its thread still closes
            assert (await client.post(f"/api/v1/runs/{run_id}/cancel")).status_code == 409
            resumed = await client.post(f"/api/v1/runs/{run_id}/resume")
            assert resumed.status_code == 202, resumed.text
            assert (await wait_done(client, run_id))["status"] == "done"

    run_async(scenario)
