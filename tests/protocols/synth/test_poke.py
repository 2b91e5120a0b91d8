"""A POKE never kills an external agent: it is the contract's SIGUSR1, which an agent that
does not handle it never notices; only ``block_after`` ends a silent agent; an agent may
answer a POKE with ``[BLOCK] reason`` (search-synth.txt, "Timeout with POKE")."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import sys
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

from assay.lab import Lab, serve_lab
from assay.protocols.synth import Timeouts, example_agent, synth_async
from assay.store.jsonl import read_jsonl
from tests.synth_support import DOCS, TOPIC, roster, searcher, settings_for

SLOW_AGENT = """
import sys, time
sys.stdin.read()
time.sleep({seconds})
print("The Tarn Valley tidal plant opened in 2016 after six years of construction [1].")
"""
BLOCKING_AGENT = """
import signal, sys, time
def poked(signum, frame):
    print("[BLOCK] my search tool is down")
    sys.exit(0)
signal.signal(signal.SIGUSR1, poked)
sys.stdin.read()
time.sleep(30)
"""


@pytest.fixture(scope="module")
def tarn() -> Iterator[Lab]:
    with serve_lab(DOCS, sites=3, faults=False, first_address="127.0.0.57") as running:
        yield running


def _run(home: Path, lab: Lab, script: Path, timeouts: Timeouts) -> tuple[Any, list[Any]]:
    gem = searcher("Gem", lab.sites[2], command=[sys.executable, str(script)])
    out = home / "out" / "synth.md"
    result = asyncio.run(
        synth_async(
            TOPIC, roster=roster(lab, gem), output=out, settings=settings_for(home),
            timeouts=timeouts,
        )
    )  # fmt: skip
    log = read_jsonl(Path(result.run_dir) / "run.log.jsonl").records
    mine = [e for e in log if e["type"] == "signal" and e["data"].get("agent") == "Gem"]
    return result, mine


def _at(event: dict[str, Any]) -> float:
    return datetime.fromisoformat(str(event["ts"]).replace("Z", "+00:00")).timestamp()


def test_a_poked_command_agent_is_not_killed_and_finishes(
    tarn: Lab, isolated_home: Path, tmp_path: Path
) -> None:
    script = tmp_path / "slow.py"
    script.write_text(SLOW_AGENT.format(seconds=1.5))
    result, mine = _run(isolated_home, tarn, script, Timeouts(0.4, 20.0))
    sent = [(e["data"]["signal"], e["data"].get("detail") or "") for e in mine]
    assert any(s == "[POKE]" for s, _ in sent), sent
    assert not [d for s, d in sent if s == "[BLOCK]"], sent  # was "exited with -10"
    assert ("[PHASE1_DONE]", "1 sentences") in sent
    assert result.signal == "[DONE]", result.reason
    assert "### Gem Response" in Path(result.output).read_text()


def test_a_silent_command_agent_is_blocked_only_at_block_after(
    tarn: Lab, isolated_home: Path, tmp_path: Path
) -> None:
    script = tmp_path / "silent.py"
    script.write_text(SLOW_AGENT.format(seconds=60))
    result, mine = _run(isolated_home, tarn, script, Timeouts(0.3, 1.5))
    poke = next(e for e in mine if e["data"]["signal"] == "[POKE]")
    block = next(e for e in mine if e["data"]["signal"] == "[BLOCK]")
    assert (
        block["data"]["detail"] == "Gem unresponsive after POKE, proceeding with available agents"
    )
    # the grace until --block-after (1.2 s here; a POKE logged late on a loaded machine
    # shortens what is measured, and the bug this guards against blocked 6 ms after it)
    assert _at(block) - _at(poke) >= 0.5
    assert result.signal == "[DONE]", result.reason  # the other two go on


def test_an_agent_may_answer_a_poke_with_block_and_its_reason(
    tarn: Lab, isolated_home: Path, tmp_path: Path
) -> None:
    script = tmp_path / "blocking.py"
    script.write_text(BLOCKING_AGENT)
    result, mine = _run(isolated_home, tarn, script, Timeouts(1.0, 20.0))
    block = next(e for e in mine if e["data"]["signal"] == "[BLOCK]")
    assert block["data"]["detail"] == "Gem signalled [BLOCK]: my search tool is down"
    assert result.signal == "[DONE]", result.reason


def test_the_example_agent_wraps_up_when_poked(monkeypatch: pytest.MonkeyPatch) -> None:
    """Poked while reading a page, it stops fetching and answers with what it has."""
    fetched: list[str] = []

    def get(url: str, timeout: float = 20.0) -> str:
        fetched.append(url)
        if "search?" in url:
            return json.dumps({"results": [{"url": "http://127.0.0.1:9/page", "title": "t"}]})
        os.kill(os.getpid(), signal.SIGUSR1)  # the POKE arrives while this page loads
        return "<p>The plant opened in 2016.</p>"

    monkeypatch.setattr(example_agent, "_get", get)
    previous = signal.getsignal(signal.SIGUSR1)
    try:
        example_agent.listen_for_poke()
        statements = [{"number": n, "text": f"The plant opened in 2016 ({n})."} for n in (1, 2, 3)]
        reply = example_agent.phase2("http://127.0.0.1:9", statements)
    finally:
        signal.signal(signal.SIGUSR1, previous)
    assert [v["verdict"] for v in reply["verdicts"]] == ["UNVERIFIABLE"] * 3
    assert len(fetched) == 2  # one search, one page: nothing after the POKE
    assert reply["verdicts"][0].get("note") == "not checked: poked"
