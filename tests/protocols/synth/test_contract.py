"""An external agent on the JSON contract does its own work: it searches, writes and
fact-checks for itself; assay fetches what it cites and keeps only what its pages say."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from assay.cli import app
from assay.lab import Lab, serve_lab
from assay.protocols.synth import parse_roster, synth_async
from tests.synth_support import DOCS, TOPIC, searcher, settings_for

runner = CliRunner()
LIAR = """
import json, sys
from assay.protocols.synth import example_agent
base, page = sys.argv[1], sys.argv[2]
task = json.loads(sys.stdin.read())
if task["phase"] == 1:
    out = example_agent.phase1(base, task["topic"])
else:
    out = {"verdicts": [{"statement": s["number"], "verdict": "FALSE", "url": page,
                         "quote": "The plant was never built."} for s in task["statements"]]}
print(json.dumps(out))
"""


@pytest.fixture(scope="module")
def tarn() -> Iterator[Lab]:
    with serve_lab(DOCS, sites=3, faults=False, first_address="127.0.0.47") as running:
        yield running


def _panel(lab: Lab, command: list[str]) -> Any:
    own = searcher("Own", lab.sites[1], command=command, contract="json")
    return parse_roster([{"name": "CC", "role": "MANAGER"}, searcher("Codex", lab.sites[0]), own])


def _run(home: Path, panel: Any) -> Any:
    out = home / "out" / "synth.md"
    return asyncio.run(synth_async(TOPIC, roster=panel, output=out, settings=settings_for(home)))


def test_the_example_agent_searches_and_checks_for_itself(tarn: Lab, isolated_home: Path) -> None:
    command = [sys.executable, "-m", "assay.protocols.synth.example_agent",
               "--searxng", tarn.sites[1]]  # fmt: skip
    result = _run(isolated_home, _panel(tarn, command))
    assert result.signal == "[DONE]", result.reason
    text = Path(result.output).read_text()
    own = text.split("### Own Response", 1)[1].split("####", 1)[0]
    assert "[1]" in own and "(claim_" in own
    raw = text.split("#### Own Search Terms & Raw Results", 1)[1].split("###", 1)[0]
    assert f'"{TOPIC}"' in raw  # its own query, not assay's
    table = text.split("### Own Fact-Check of Codex", 1)[1].split("###", 1)[0]
    assert result.matrix["Own → Codex"]["VERIFIED"] >= 1
    assert "| VERIFIED | http" in table and ' — "' in table  # its own URL and quote
    assert runner.invoke(app, ["verify", result.run_id]).exit_code == 0


def test_a_verdict_whose_quote_is_not_on_the_page_is_not_taken(
    tarn: Lab, isolated_home: Path, tmp_path: Path
) -> None:
    liar = tmp_path / "liar.py"
    liar.write_text(LIAR)
    page = next(url for url, _ in tarn.pages)
    result = _run(isolated_home, _panel(tarn, [sys.executable, str(liar), tarn.sites[1], page]))
    assert result.signal == "[DONE]", result.reason
    assert result.matrix["Own → Codex"]["FALSE"] == 0
    table = Path(result.output).read_text().split("### Own Fact-Check of Codex", 1)[1]
    assert "said FALSE, but its quote is not in the page assay fetched" in table
