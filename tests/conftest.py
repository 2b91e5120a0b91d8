"""Every test runs with its own ASSAY_HOME, no provider keys, relaxed fsync and, outside the
tests of fetching itself (marked ``paced``), quick pacing of requests to one host."""

from __future__ import annotations

import asyncio
import functools
import os
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import typer.main
import typer.testing

import assay.models
from assay.gather.fetch import client
from assay.gather.fetch.pacing import Pacer
from assay.gather.search import scholarly
from assay.lab import Lab
from assay.redact import forget_secrets

# Unit tests never reach a real model: a request fails unless a test allows it explicitly.
assay.models.set_model_requests_allowed(False)

# The suite starts many Python processes (xdist workers, CLI subprocesses, queue workers).
# Under PYTHONDONTWRITEBYTECODE each one compiled assay and rewrote every test module anew,
# about 3 s of CPU a process; the bytecode goes to the usual (git-ignored) __pycache__.
os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
sys.dont_write_bytecode = False

# typer's CliRunner builds the click command tree from the app's functions on every invoke:
# ~25 ms of CPU each, ~300 invokes a suite. The tree is fixed at import, so it is built once.
typer.testing._get_command = functools.cache(typer.main.get_command)

pytest_plugins = ["tests.lab_fixtures", "tests.localllm_fixtures", "tests.queue_fixtures"]

_KEY_SUFFIXES = ("_API_KEY", "_KEY", "_TOKEN", "_SECRET")
TEST_PACING = 0.05
"""Seconds between two requests to one host in tests not marked ``paced``: lab sites are
loopback servers the tests run, so the one-second rule (proved by the fetch tests, which
keep it) would only make every research run wait."""


def _quick_pacer(interval: float, max_concurrency: int, **options: Any) -> Pacer:
    return Pacer(min(interval, TEST_PACING), max_concurrency, **options)


@pytest.fixture(autouse=True)
def quick_pacing(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    if request.node.get_closest_marker("paced") is None:
        monkeypatch.setattr(client, "Pacer", _quick_pacer)
        monkeypatch.setattr(scholarly, "Pacer", _quick_pacer)  # the scholarly APIs' pacing


@pytest.fixture(scope="session", autouse=True)
def session_temp_dir(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """What session fixtures (the lab, the shared lab run) put in the system temp dir goes
    under pytest's base temp dir, not /tmp."""
    with pytest.MonkeyPatch.context() as patch:
        yield _temp_dir_at(tmp_path_factory.mktemp("system-tmp"), patch)


@pytest.fixture(autouse=True)
def temp_dir(
    session_temp_dir: Path,
    tmp_path_factory: pytest.TempPathFactory,
    monkeypatch: pytest.MonkeyPatch,
) -> Path:
    """Each test's system temp dir (tempfile's, and TMPDIR for the processes it starts) is
    its own, under pytest's base temp dir: what a test leaves there (a deep run's temp dir,
    kept by design when the run ends before its report passes the integrity check) goes
    with pytest's own cleanup of old base temp dirs instead of piling up in /tmp."""
    return _temp_dir_at(tmp_path_factory.mktemp("tmp"), monkeypatch)


def _temp_dir_at(folder: Path, patch: pytest.MonkeyPatch) -> Path:
    patch.setenv("TMPDIR", str(folder))
    patch.setattr(tempfile, "tempdir", str(folder))  # gettempdir() caches its first answer
    return folder


def _isolate(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """No ASSAY_* setting or provider key from outside; ``home`` as ASSAY_HOME, no fsync."""
    for name in list(os.environ):
        if name.startswith("ASSAY_") or name.upper().endswith(_KEY_SUFFIXES):
            monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("ASSAY_HOME", str(home))
    monkeypatch.setenv("ASSAY_FSYNC", "never")


@pytest.fixture(autouse=True)
def isolated_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    home = tmp_path / "assay-home"
    home.mkdir()
    _isolate(home, monkeypatch)
    forget_secrets()  # a key one test registered must not mask another test's text
    yield home
    forget_secrets()


LAB_TOPIC = "How tall is the Halvorsen Lighthouse?"


@pytest.fixture(scope="session")
def lab_research_run(lab: Lab, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The run directory of one extractive research run on LAB_TOPIC over the lab, made once
    per test session (shared by the xdist workers, see shared_build) for the tests that only
    read a finished run (copy it to change it)."""
    from tests.shared_build import built_once

    home = built_once(tmp_path_factory, "lab-run-home", lambda folder: _research(lab, folder))
    (run_dir,) = (p for p in (home / "runs").iterdir() if p.is_dir())
    return run_dir


def _research(lab: Lab, home: Path) -> None:
    """One extractive research run on LAB_TOPIC over ``lab``, in ``home``."""
    from assay.config import load_settings
    from assay.protocols.research import research_async

    with pytest.MonkeyPatch.context() as patch:
        _isolate(home, patch)
        patch.setattr(client, "Pacer", _quick_pacer)
        settings = load_settings(
            home=home, search="searxng", searxng_url=lab.sites[0], allow_hosts=["127.0.0.0/8"]
        )
        asyncio.run(research_async(LAB_TOPIC, settings=settings))


def make_run(home: Path, topic: str = "Sample topic", *, torn_log: bool = False) -> Path:
    """A finished run with a source, two claims and a timeline, as a protocol would leave it."""
    from assay.events import (
        ClaimCreated,
        ClaimVerified,
        PhaseStarted,
        ReportUpdated,
        RunFinished,
        RunStarted,
        SourceSkipped,
        ToolOpenUrl,
        ToolSearch,
    )
    from assay.store.claims import ClaimLedger, ClaimRecord
    from assay.store.runs import RunStore
    from assay.store.sources import SourceLedger

    run = RunStore(home, fsync=False).create(topic, "research", {"search": "local"})
    log = run.events
    log.emit(RunStarted(run_id=run.id, topic=topic, protocol="research"))
    log.emit(PhaseStarted(phase="gather"))
    log.emit(ToolSearch(queries=["alpha", "beta", "gamma"], result_count=7, provider="local"))
    source = SourceLedger(run.dir, fsync=False).add(
        url="http://site.test/a",
        final_url="http://site.test/a",
        title="Alpha page",
        text="Alpha is 42 units tall.",
        content_type="text/html",
        accessed_at="2026-11-29T10:00:00.000Z",
    )
    log.emit(ToolOpenUrl(url=source.url, title=source.title, snapshot=source.snapshot))
    log.emit(SourceSkipped(url="http://site.test/private", reason="disallowed by robots.txt"))
    claims = ClaimLedger(run.dir, fsync=False)
    for number, status in ((1, "verified"), (2, "weak")):
        claim = ClaimRecord(
            id=f"claim_00{number}",
            text="Alpha is 42 units tall.",
            confidence="high",
            sourceIds=[source.id],
            status=status,
        )
        claims.append(claim)
        log.emit(ClaimCreated(id=claim.id, confidence="high", source_ids=[source.id]))
        log.emit(ClaimVerified(id=claim.id, status=status))
    run.write_file("report.md", "# Report\n")
    log.emit(ReportUpdated(chars=9))
    log.emit(RunFinished(status="done"))
    run.finish("done")
    if torn_log:
        with (run.dir / "run.log.jsonl").open("ab") as handle:
            handle.write(b'{"type":"warning","data":{"mess')
    return run.dir


@pytest.fixture
def sample_run(isolated_home: Path) -> Path:
    return make_run(isolated_home)
