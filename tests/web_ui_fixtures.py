"""Shared pieces of the web UI's browser tests: Debian's Chromium through Playwright's
``executable_path`` (nothing downloads a browser), one server over the lab per test process
with a local index as its second search provider (so synth's default panel has two
searchers), a second one over finished runs made through the API once per test session,
and where screenshots go ($ASSAY_SCREENSHOTS, else test-artefacts/screens/, which git
ignores)."""

from __future__ import annotations

import json
import os
import shutil
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx2
import pytest

from assay.lab import Lab
from tests.paths import ROOT

CHROMIUM = os.environ.get("ASSAY_CHROMIUM") or shutil.which("chromium")
SCREENSHOTS = Path(os.environ.get("ASSAY_SCREENSHOTS") or ROOT / "test-artefacts" / "screens")
TOPIC = "How tall is the Halvorsen Lighthouse?"
SIZES = {"desktop": (1280, 800), "phone": (390, 844)}
needs_chromium = pytest.mark.skipif(CHROMIUM is None, reason="needs Debian's chromium package")


@dataclass
class Served:
    base: str
    home: Path
    runs: dict[str, str] = field(default_factory=dict)
    """Finished runs by protocol (made through the API by ``finished``)."""

    def start(self, body: dict[str, Any]) -> str:
        answer = httpx2.post(f"{self.base}/api/v1/runs", json=body, timeout=60)
        assert answer.status_code == 202, answer.text
        run_id: str = answer.json()["id"]
        return run_id

    def wait(self, run_id: str, timeout: float = 60.0) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            detail: dict[str, Any] = httpx2.get(f"{self.base}/api/v1/runs/{run_id}").json()
            if detail["status"] != "running":
                return detail
            time.sleep(0.1)
        raise AssertionError(f"run {run_id} did not finish")


def with_local_index(home: Path, corpus: Path) -> None:
    from assay.gather.index import LocalIndex

    with LocalIndex(home / "index.sqlite") as index:
        index.add_paths(sorted(corpus.iterdir()))


@contextmanager
def serving(home: Path, lab: Lab, corpus: Path | None = None) -> Iterator[Served]:
    """The app over the lab in a thread, on ``home`` (indexing ``corpus`` there first)."""
    from assay.config import load_settings
    from assay.web.app import ServerConfig, create_app
    from assay.web.testing import serve_in_thread
    from tests.conftest import _isolate

    with pytest.MonkeyPatch.context() as patch:
        _isolate(home, patch)
        if corpus is not None:
            with_local_index(home, corpus)
        settings = load_settings(home=home, search="searxng", searxng_url=lab.sites[0],
                                 allow_hosts=["127.0.0.0/8"])  # fmt: skip
        with serve_in_thread(create_app(ServerConfig(settings))) as base:
            yield Served(base, home)


@pytest.fixture(scope="session")
def served(
    lab: Lab, lab_corpus_dir: Path, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Served]:
    """The app over the lab in a thread, with its own home, for every browser test of this
    process (tests/web/conftest.py shares it) that starts runs of its own."""
    with serving(tmp_path_factory.mktemp("web-ui-home"), lab, lab_corpus_dir) as running:
        yield running


FINISHED = {"research": {}, "ask": {}, "deep": {"max_directions": 2}, "synth": {}}
FINISHED_RUNS = "finished-runs.json"


def _finish_runs(home: Path, lab: Lab, corpus: Path) -> None:
    """A finished run of each protocol in FINISHED, started through the API on ``home``; their
    ids by protocol go to FINISHED_RUNS there."""
    with serving(home, lab, corpus) as running:
        for protocol, extra in FINISHED.items():
            run_id = running.start({"topic": TOPIC, "protocol": protocol, **extra})
            assert running.wait(run_id)["status"] == "done", protocol
            running.runs[protocol] = run_id
    (home / FINISHED_RUNS).write_text(json.dumps(running.runs), encoding="utf-8")


@pytest.fixture(scope="session")
def finished(
    lab: Lab, lab_corpus_dir: Path, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Served]:
    """A server of its own over a home with a finished research, ask, deep and synth run,
    for the pages that read them. The runs are made once per test session (shared_build);
    each test process serves its own copy of that home, so what one starts stays its own."""
    from tests.shared_build import built_once

    shared = built_once(
        tmp_path_factory, "web-ui-finished", lambda home: _finish_runs(home, lab, lab_corpus_dir)
    )
    home = tmp_path_factory.mktemp("web-ui-finished-home")
    shutil.copytree(shared, home, dirs_exist_ok=True)
    with serving(home, lab) as running:
        running.runs.update(json.loads((home / FINISHED_RUNS).read_text(encoding="utf-8")))
        yield running


@pytest.fixture(scope="module")
def chromium() -> Iterator[Any]:
    # Per module, not per session: Playwright's sync API holds an event loop on this thread
    # while it runs, and the other browser modules' fixtures call asyncio.run.
    playwright_api = pytest.importorskip("playwright.sync_api")
    with playwright_api.sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        try:
            yield launched
        finally:
            launched.close()


def new_page(browser: Any, size: str = "desktop", scheme: str = "light", **options: Any) -> Any:
    """A page in a fresh context (no cookies, storage or cache from another test); no
    animation, so a screenshot shows where a progress bar ends, not where it was going."""
    width, height = SIZES[size]
    context = browser.new_context(
        viewport={"width": width, "height": height}, color_scheme=scheme,
        reduced_motion="reduce", **options,
    )  # fmt: skip
    page = context.new_page()
    page.set_default_timeout(20_000)
    return page


def screenshot(page: Any, name: str) -> Path:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    target = SCREENSHOTS / f"{name}.png"
    page.screenshot(path=str(target), full_page=True)
    return target
