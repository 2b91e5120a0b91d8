"""search-synth end to end over a tiny lab of its own (127.0.0.40–42): real HTTP, the real
fetcher, the extractive engine, scripted models and an external command."""

from __future__ import annotations

import asyncio
import os
import re
import socket
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from assay.cli import app
from assay.errors import ProviderError
from assay.lab import Lab, serve_lab
from assay.models.base import Request
from assay.models.testing import ScriptedModel, Stall
from assay.protocols.synth import Timeouts, parse_roster, synth_async
from assay.store.claims import ClaimLedger
from assay.store.jsonl import read_jsonl
from tests.paths import TESTS
from tests.synth_support import DOCS, FALSE_SENTENCE, TOPIC, roster, searcher, settings_for

runner = CliRunner()
GOLDEN = TESTS / "golden" / "synth" / "extractive.md"


@pytest.fixture(scope="module")
def tarn() -> Iterator[Lab]:
    with serve_lab(DOCS, sites=6, faults=False, first_address="127.0.0.40") as running:
        yield running


def signals(run_dir: str) -> list[dict[str, Any]]:
    log = read_jsonl(Path(run_dir) / "run.log.jsonl").records
    return [e["data"] for e in log if e["type"] == "signal"]


def run(home: Path, panel: Any, **kwargs: Any) -> Any:
    out = home / "out" / "synth.md"
    return asyncio.run(
        synth_async(TOPIC, roster=panel, output=out, settings=settings_for(home), **kwargs)
    )


def picker(chosen: list[float], pick: str | None = None, delay: float = 0.0) -> Any:
    """A scripted LLM agent: paragraphs of sentence numbers (those containing ``pick``
    first); it records when each request started and ended."""

    async def script(request: Request) -> object:
        prompt = request.messages[-1].content  # the latest turn of its conversation
        if "EVIDENCE:" in request.messages[-1].content:
            return {"label": "NOT_ENOUGH_INFO", "sentence": 0}
        if prompt.startswith("TOPIC:"):  # its own queries
            return {"queries": ["Tarn Valley tidal plant homes", "Tarn Valley plant opened"]}
        if prompt.startswith("CLAIMS:"):
            return {"answer": "2016", "claim": 1}
        chosen.append(time.monotonic())
        await asyncio.sleep(delay)
        chosen.append(time.monotonic())
        numbers = re.findall(r"^\[(\d+)\] (.*)$", prompt, re.M)
        first = [(int(n), text) for n, text in numbers if pick and pick in text]
        rest = [(int(n), text) for n, text in numbers if (int(n), text) not in first]
        if "STATEMENTS:" in prompt:  # written prose: each sentence restates its statement
            return {"sentences": [{"text": t, "statements": [n]} for n, t in (first + rest)[:6]]}
        order = [n for n, _ in first + rest]
        return {"paragraphs": [p for p in (order[:2], order[2:4], order[4:6]) if p]}

    return script


def test_extractive_panel_matrix_and_verify(tarn: Lab, isolated_home: Path) -> None:
    result = run(isolated_home, roster(tarn))
    assert result.signal == "[DONE]" and result.exit_code == 0, result.reason
    sent = [(s["signal"], s.get("agent")) for s in signals(result.run_dir)]
    phase1 = [s for s in sent if s[0] == "[PHASE1_DONE]"]
    phase2 = [s for s in sent if s[0] == "[PHASE2_DONE]"]
    assert sorted(phase1) == [("[PHASE1_DONE]", "Codex"), ("[PHASE1_DONE]", "Peer")]
    assert sent.index(phase2[0]) > max(sent.index(s) for s in phase1)
    assert sent[-1] == ("[DONE]", "CC")
    assert set(result.matrix) == {"Codex → Peer", "Peer → Codex"}  # N×(N−1)
    text = Path(result.output).read_text()
    assert text == (Path(result.run_dir) / "report.md").read_text()
    assert runner.invoke(app, ["verify", result.run_id]).exit_code == 0
    shown = runner.invoke(app, ["show", result.run_id]).output
    assert "verdict matrix" in shown and "Codex → Peer" in shown and "Peer → Codex" in shown
    for pair, counts in result.matrix.items():
        row = next(line for line in shown.splitlines() if pair in line)
        assert [int(n) for n in re.findall(r"\d+", row.split(pair)[1])[:3]] == [
            counts.get(v, 0) for v in ("VERIFIED", "FALSE", "UNVERIFIABLE")
        ]
    normal = re.sub(r"127\.0\.0\.4\d:\d+", "HOST", text)
    normal = re.sub(r"\*\*Date:\*\* \S+", "**Date:** DATE", normal)
    if os.environ.get("UPDATE_GOLDEN"):
        GOLDEN.write_text(normal)
    assert normal == GOLDEN.read_text()


def test_planted_false_claim_is_false_and_left_out(tarn: Lab, isolated_home: Path) -> None:
    times: list[float] = []
    models = {"Codex": ScriptedModel(picker(times, pick="900,000"))}
    result = run(isolated_home, roster(tarn), models=models)
    assert result.signal == "[DONE]", result.reason
    text = Path(result.output).read_text()
    codex = text.split("### Codex Response")[1].split("####")[0]
    assert FALSE_SENTENCE.rstrip(".") in codex
    check = text.split("### Peer Fact-Check of Codex")[1].split("###")[0]
    row = next(line for line in check.splitlines() if "900,000" in line)
    assert "| FALSE |" in row and "200,000 homes" in row  # the refuting quote
    final = text.split("## Phase 3: Best and Verified Response")[1]
    assert "900,000" not in final
    assert result.matrix["Peer → Codex"]["FALSE"] >= 1


def test_phase1_searchers_work_in_parallel(tarn: Lab, isolated_home: Path) -> None:
    a: list[float] = []
    b: list[float] = []
    models = {
        "Codex": ScriptedModel(picker(a, delay=0.5)),
        "Peer": ScriptedModel(picker(b, delay=0.5)),
    }
    result = run(isolated_home, roster(tarn), models=models)
    assert result.signal == "[DONE]", result.reason
    # each searcher's model call overlaps the other's: wall time is the slowest, not the sum
    assert a[0] < b[1] and b[0] < a[1]
    assert max(a[1], b[1]) - min(a[0], b[0]) < 0.9


def test_poke_then_block_then_incomplete(tarn: Lab, isolated_home: Path) -> None:
    stalled = ScriptedModel([Stall(), Stall()])
    result = run(isolated_home, roster(tarn), models={"Peer": stalled}, timeouts=Timeouts(2.5, 4.0))
    assert result.signal == "[INCOMPLETE]" and result.exit_code == 6
    assert len(stalled.requests) == 2
    poke = stalled.requests[1].messages[-1].content
    assert poke.startswith("Peer - MANAGER here. POKE: You haven't reported Phase 1 results.")
    sent = {(s["signal"], s.get("agent")): s.get("detail") for s in signals(result.run_dir)}
    assert ("[POKE]", "Peer") in sent
    assert sent[("[BLOCK]", "Peer")] == (
        "Peer unresponsive after POKE, proceeding with available agents"
    )
    assert ("[INCOMPLETE]", None) in sent
    assert "**[INCOMPLETE]**" in Path(result.output).read_text()


def test_chief_author_is_reassigned(tarn: Lab, isolated_home: Path) -> None:
    panel = parse_roster(
        {
            "agents": [
                {"name": "CC", "role": "MANAGER", "model": "scripted:chief"},
                searcher("Codex", tarn.sites[0]),
                searcher("Peer", tarn.sites[1]),
            ]
        }
    )
    down = ScriptedModel([ProviderError("chief is down")] * 3)
    result = run(isolated_home, panel, models={"CC": down})
    assert result.signal == "[DONE]", result.reason
    assert result.chief_author == "Codex"
    text = Path(result.output).read_text()
    assert "**Chief Author:** Codex" in text.split("## Phase 3")[1]
    header = text.split("---", 1)[0]
    assert "**Log:** CHIEF_AUTHOR CC unavailable; reassigned to Codex" in header
    log = read_jsonl(Path(result.run_dir) / "run.log.jsonl").records
    assert any(e["data"].get("code") == "chief_reassigned" for e in log if e["type"] == "warning")


AGENT_SCRIPT = """
import re, sys
prompt = sys.stdin.read()
blocks = re.split(r"^(?=\\[\\d+\\] )", prompt, flags=re.M)
def cite(words):
    return "".join(b[:b.index("]") + 1] for b in blocks if b.startswith("[") and words in b)
print("The Tarn Valley tidal plant opened in 2016 after six years of construction %s."
      % cite("opened in 2016"))
print("")
print("See https://example.com/raw for more. The Tarn Valley tidal plant supplies power"
      " to roughly 200,000 homes %s." % cite("200,000"))
print("")
print("#### Gem Search Terms & Raw Results")
print("| http://ignored | x |")
"""


def test_external_command_agent_on_the_panel(
    tarn: Lab, isolated_home: Path, tmp_path: Path
) -> None:
    script = tmp_path / "agent.py"
    script.write_text(AGENT_SCRIPT)
    gem = searcher("Gem", tarn.sites[2], command=[sys.executable, str(script)])
    result = run(isolated_home, roster(tarn, gem))
    assert result.signal == "[DONE]", result.reason
    assert len(result.matrix) == 6  # 3 × 2
    text = Path(result.output).read_text()
    gem_text = text.split("### Gem Response")[1].split("####")[0]
    assert "example.com" not in gem_text and "200,000 homes" in gem_text
    mine = [c for c in ClaimLedger(Path(result.run_dir)).claims() if c.created_by == "Gem"]
    assert sum(c.status in ("verified", "weak") for c in mine) == 2
    assert runner.invoke(app, ["verify", result.run_id]).exit_code == 0


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


MANAGER = {"name": "CC", "role": "MANAGER"}


@pytest.mark.parametrize(
    ("case", "needle"),
    [
        ("one searcher", "1 agent(s) can search"),
        ("no manager", "no agent is designated MANAGER"),
        ("manager searches", "the MANAGER never searches"),
        ("tool down", "failed: "),
        ("no tool", "declares no search_tool"),
    ],
)
def test_mismatch_halts_before_any_phase(
    tarn: Lab, isolated_home: Path, case: str, needle: str
) -> None:
    codex, peer = searcher("Codex", tarn.sites[0]), searcher("Peer", tarn.sites[1])
    agents: list[dict[str, Any]] = {
        "one searcher": [MANAGER, codex],
        "no manager": [codex, peer],
        "manager searches": [{**MANAGER, "can_search": True}, codex, peer],
        "tool down": [MANAGER, codex, searcher("Peer", f"http://127.0.0.1:{closed_port()}")],
        "no tool": [MANAGER, codex, {**peer, "search_tool": None}],
    }[case]
    result = run(isolated_home, parse_roster(agents))
    assert result.signal == "[MISMATCH]" and result.exit_code == 5
    sent = signals(result.run_dir)
    assert [s["signal"] for s in sent] == ["[MISMATCH]"]
    text = Path(result.output).read_text()
    assert "**[MISMATCH]**" in text and "| Agent | Declared | Probe |" in text and needle in text
    for agent in agents:
        assert f"| {agent['name']} |" in text
    log = read_jsonl(Path(result.run_dir) / "run.log.jsonl").records
    assert not any(e["type"] == "tool.search" for e in log)  # never simulate a search


def test_claim_ids_do_not_depend_on_which_searcher_is_faster(
    tarn: Lab, isolated_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The searchers work in parallel; the first in the roster still records first."""
    from assay.protocols.synth import phases

    real = phases.gather

    async def slow_first(session: Any, queries: list[str]) -> Any:
        if session.settings.searxng_url == tarn.sites[0]:  # Codex, first in the roster
            await asyncio.sleep(1.0)
        return await real(session, queries)

    monkeypatch.setattr(phases, "gather", slow_first)
    result = run(isolated_home, roster(tarn))
    mine = {c.created_by: c.id for c in reversed(ClaimLedger(Path(result.run_dir)).claims())}
    assert mine["Codex"] == "claim_001"  # was Peer's, who finished first


def test_every_fact_check_row_is_an_event_for_the_live_matrix(
    tarn: Lab, isolated_home: Path
) -> None:
    from collections import Counter

    from assay.protocols.synth.matrix import load_panel, parse_fact_checks

    result = run(isolated_home, roster(tarn))
    log = read_jsonl(Path(result.run_dir) / "run.log.jsonl").records
    checked = [e["data"] for e in log if e["type"] == "synth.checked"]
    events = Counter((d["checker"], d["author"], d["verdict"]) for d in checked)
    report = (Path(result.run_dir) / "report.md").read_text(encoding="utf-8")
    tables = Counter(
        {(f.checker, f.author, verdict): n
         for f in parse_fact_checks(report) for verdict, n in f.counts.items()}
    )  # fmt: skip
    assert events and events == +tables
    # synth.json, what the interfaces read, holds the matrix the report's tables show
    panel = load_panel(Path(result.run_dir))
    assert panel.chief == result.chief_author
    assert [(c.checker, c.author, c.counts, c.blocked) for c in panel.checks] == [
        (c.checker, c.author, c.counts, c.blocked) for c in parse_fact_checks(report)
    ]
    claims = {c.id for c in ClaimLedger(Path(result.run_dir)).claims()}
    assert all(d["checkId"] in claims for d in checked)
