"""A run the server cancels closes every connection it opened: the fetcher's and the
search provider's, whether the cancel lands mid-fetch or while the run closes them."""

from __future__ import annotations

import asyncio
import gc
from pathlib import Path
from types import TracebackType

import pytest

from assay.config import load_settings
from assay.gather.session import GatherSession
from assay.lab import Lab
from assay.protocols.launch import StartRun
from assay.web.runs import RunManager
from tests.lab_fixtures import connections_left

TOPIC = "How tall is the Halvorsen Lighthouse?"


def cancel_all(runs: RunManager) -> None:
    for worker in list(runs.workers.values()):
        worker.cancel()


def cancel_mid_fetch(lab: Lab, runs: RunManager, monkeypatch: pytest.MonkeyPatch) -> None:
    """The run is cancelled as the lab serves it its first page."""
    record = lab.record

    def recording(site: int, target: str) -> None:
        record(site, target)
        if target.startswith("/pages/"):
            cancel_all(runs)

    monkeypatch.setattr(lab, "record", recording)


def cancel_while_closing(lab: Lab, runs: RunManager, monkeypatch: pytest.MonkeyPatch) -> None:
    """The run is cancelled as its gathering session closes its clients (the cancel lands
    at the closing's first wait)."""
    close = GatherSession.__aexit__

    async def closing(
        session: GatherSession,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        cancel_all(runs)
        await close(session, exc_type, exc, tb)

    monkeypatch.setattr(GatherSession, "__aexit__", closing)


@pytest.mark.parametrize("when", [cancel_mid_fetch, cancel_while_closing])
def test_a_cancelled_run_leaves_no_connection_open(
    own_lab: Lab,
    isolated_home: Path,
    unraisable: list[str],
    monkeypatch: pytest.MonkeyPatch,
    when: object,
) -> None:
    settings = load_settings(home=isolated_home, search="searxng", searxng_url=own_lab.sites[0],
                             allow_hosts=["127.0.0.0/8"])  # fmt: skip
    runs = RunManager(settings)
    assert callable(when)
    when(own_lab, runs, monkeypatch)

    async def scenario() -> str:
        run_id = await runs.start(StartRun(topic=TOPIC, protocol="deep", max_directions=2))
        await asyncio.wrap_future(runs.workers[run_id].ended)
        return run_id

    run_id = asyncio.run(scenario())
    assert runs.store.open(run_id).info.status == "interrupted"
    assert own_lab.hits("/pages/")  # it had fetched, so it had connections to close
    assert connections_left(own_lab) == 0  # not left for the garbage collector to close
    gc.collect()
    assert unraisable == []
