"""A run killed with -9 and resumed reaches what the uninterrupted run reaches."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from assay.cli.app import app
from assay.config import load_settings
from assay.lab import Lab
from assay.protocols.research import research_async
from assay.store.jsonl import read_jsonl

TOPIC = "When was the Velmar honeybee first described?"
SOURCES = 4
WRITER = """
import asyncio, sys
from pathlib import Path
from assay.config import load_settings
from assay.protocols.research import research_async
settings = load_settings(home=Path(sys.argv[1]), search="searxng", searxng_url=sys.argv[2],
                         allow_hosts=["127.0.0.0/8"])
asyncio.run(research_async(sys.argv[3], settings=settings, sources=int(sys.argv[4])))
"""


def _events(run_dir: Path) -> list[dict[str, Any]]:
    return read_jsonl(run_dir / "run.log.jsonl").records


def _opened(run_dir: Path) -> list[str]:
    return [e["data"]["url"] for e in _events(run_dir) if e["type"] == "tool.open_url"]


def _searches(run_dir: Path) -> list[str]:
    return sorted(
        json.dumps(e["data"].get("queries"), sort_keys=True)
        for e in _events(run_dir)
        if e["type"] == "tool.search"
    )


def _killed_after_first_source(home: Path, lab: Lab) -> Path:
    writer = subprocess.Popen(
        [sys.executable, "-c", WRITER, str(home), lab.sites[0], TOPIC, str(SOURCES)],
        env=dict(os.environ),
    )
    deadline = time.monotonic() + 30
    run_dir = None
    while time.monotonic() < deadline and run_dir is None:
        for log in home.glob("runs/*/run.log.jsonl"):
            if '"tool.open_url"' in log.read_text(encoding="utf-8"):
                run_dir = log.parent
        time.sleep(0.02)
    writer.send_signal(signal.SIGKILL)
    writer.wait()
    assert run_dir is not None, "the writer read no source in 30 s"
    return run_dir


def test_a_killed_run_resumed_reaches_the_uninterrupted_result(lab: Lab, tmp_path: Path) -> None:
    whole_home, killed_home = tmp_path / "whole", tmp_path / "killed"
    settings = load_settings(
        home=whole_home, search="searxng", searxng_url=lab.sites[0], allow_hosts=["127.0.0.0/8"]
    )
    whole = asyncio.run(research_async(TOPIC, settings=settings, sources=SOURCES))

    run_dir = _killed_after_first_source(killed_home, lab)
    read_before = _opened(run_dir)
    assert 1 <= len(read_before) < SOURCES, "killed too late to prove anything"
    # No search flags: the run goes on with the provider and allow-list it started with.
    result = CliRunner().invoke(app, ["resume", run_dir.name, "--home", str(killed_home)])
    assert result.exit_code == 0, result.output

    opened = _opened(run_dir)
    assert len(opened) == len(set(opened)), "a recorded fetch was repeated"
    assert opened[: len(read_before)] == read_before
    assert sorted(opened) == sorted(s["url"] for s in whole.sources)
    # Follow-up rounds search again by design; what must not happen is a search repeated
    # because the resumed run lost the results it had.
    whole_dir = next(whole_home.glob("runs/*"))
    assert _searches(run_dir) == _searches(whole_dir), "the resumed run repeated a search"
