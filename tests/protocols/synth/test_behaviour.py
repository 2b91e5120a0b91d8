"""search-synth behaves as its spec intends: searchers plan their own queries, narratives
are written and grounded, timers time the agent only, a default roster, a neutral probe."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from assay.config import load_settings
from assay.events import Event, PhaseStarted
from assay.keys import KeyStore
from assay.lab import Lab, serve_lab
from assay.models.base import Request
from assay.models.testing import ScriptedModel
from assay.protocols.synth import Timeouts, default_roster, phases, synth_async
from assay.protocols.synth.matrix import parse_fact_checks
from assay.store.jsonl import read_jsonl
from tests.synth_support import DOCS, TOPIC, roster, settings_for


@pytest.fixture(scope="module")
def tarn() -> Iterator[Lab]:
    with serve_lab(DOCS, sites=3, faults=False, first_address="127.0.0.52") as running:
        yield running


def run(home: Path, panel: Any, topic: str = TOPIC, **kwargs: Any) -> Any:
    out = home / "out" / "synth.md"
    return asyncio.run(
        synth_async(topic, roster=panel, output=out, settings=settings_for(home), **kwargs)
    )


def queries_of(text: str, agent: str) -> str:
    section = text.split(f"#### {agent} Search Terms & Raw Results", 1)[1]
    return section.split("\n", 2)[1]


def table_text(result: Any) -> str:
    return Path(result.output).read_text()


def signals(run_dir: str) -> list[dict[str, Any]]:
    log = read_jsonl(Path(run_dir) / "run.log.jsonl").records
    return [e["data"] for e in log if e["type"] == "signal"]


def test_extractive_searchers_search_with_their_own_strategies(
    tarn: Lab, isolated_home: Path
) -> None:
    result = run(isolated_home, roster(tarn))
    assert result.signal == "[DONE]", result.reason
    text = Path(result.output).read_text()
    codex, peer = queries_of(text, "Codex"), queries_of(text, "Peer")
    assert codex.startswith("**Query:**") and peer.startswith("**Query:**")
    assert codex != peer
    final = text.split("## Phase 3: Best and Verified Response", 1)[1]
    assert "Sources:" not in final and "http" not in final.split("### Unverified")[0]
    # No Phase 2 check found an independent page for "opened in 2016" here, so no answer
    # leads; a date from another event ("a fish ladder was added in 2019") must not either.
    assert "**Answer:** 2019" not in final


def writer(stall_judge: list[bool]) -> Any:
    """A scripted LLM agent: its own queries, then prose with one grounded sentence and
    one that no quote supports."""

    async def script(request: Request) -> object:
        prompt = request.messages[-1].content  # the latest turn of its conversation
        if "EVIDENCE:" in request.messages[-1].content:
            if stall_judge and stall_judge[0]:
                await asyncio.sleep(60)
            return {"label": "NOT_ENOUGH_INFO", "sentence": 0}
        if prompt.startswith("TOPIC:"):
            return {"queries": ["Tarn Valley tidal plant opened", "Tarn estuary power plant"]}
        if prompt.startswith("CLAIMS:"):
            return {"answer": "2016", "claim": 1}
        found = re.findall(r"^\[(\d+)\] (.*)$", prompt, re.M)
        opened = next(int(n) for n, t in found if "opened in 2016" in t)
        return {"sentences": [
            {"text": "The Tarn Valley tidal plant opened in 2016.", "statements": [opened]},
            {"text": "The plant was built by a Danish firm for 3 billion euros.",
             "statements": [opened]},
        ]}  # fmt: skip

    return script


def test_a_model_searcher_plans_its_own_queries_and_writes_grounded_prose(
    tarn: Lab, isolated_home: Path
) -> None:
    model = ScriptedModel(writer([]))
    result = run(isolated_home, roster(tarn), models={"Codex": model})
    assert result.signal == "[DONE]", result.reason
    planning = next(r for r in model.requests if r.messages[0].content.startswith("TOPIC:"))
    assert "DIFFER" in planning.system and "searcher 1 of 2" in planning.system
    text = Path(result.output).read_text()
    assert "Tarn Valley tidal plant opened" in queries_of(text, "Codex")
    codex = text.split("### Codex Response", 1)[1].split("####", 1)[0]
    assert "The Tarn Valley tidal plant opened in 2016. [" in codex
    assert "Danish firm" not in text  # its cited quote does not say it: dropped


def test_timers_time_the_agent_not_assays_fetching(
    tarn: Lab, isolated_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = phases.gather

    async def slow_gather(session: Any, queries: list[str]) -> Any:
        await asyncio.sleep(0.9)  # assay's own searching and fetching, slower than the timers
        return await real(session, queries)

    monkeypatch.setattr(phases, "gather", slow_gather)
    result = run(isolated_home, roster(tarn), timeouts=Timeouts(0.4, 0.8))
    assert result.signal == "[DONE]", result.reason
    assert not [s for s in signals(result.run_dir) if s["signal"] in ("[POKE]", "[BLOCK]")]


def test_a_blocked_checker_says_blocked_in_its_table(tarn: Lab, isolated_home: Path) -> None:
    stall = [False]

    def listen(event: Event) -> None:
        if isinstance(event, PhaseStarted) and event.phase == "phase2":
            stall[0] = True

    model = ScriptedModel(writer(stall))
    result = run(
        isolated_home, roster(tarn), models={"Peer": model}, timeouts=Timeouts(0.5, 1.0),
        listener=listen,
    )  # fmt: skip
    assert result.signal == "[DONE]", result.reason
    assert "phase 2: Peer" in result.blocked
    table = Path(result.output).read_text().split("### Peer Fact-Check of Codex", 1)[1]
    assert "| BLOCKED | Peer unresponsive after POKE" in table.split("###", 1)[0]
    (check,) = [c for c in parse_fact_checks(table_text(result)) if c.checker == "Peer"]
    assert check.blocked and "unresponsive" in check.blocked


def test_a_topic_with_no_hits_is_not_a_mismatch(tarn: Lab, isolated_home: Path) -> None:
    result = run(isolated_home, roster(tarn), topic="Zorblax")
    assert result.signal != "[MISMATCH]", result.reason
    assert result.signal in ("[DONE]", "[INCOMPLETE]")


def test_the_default_roster_comes_from_what_is_configured(
    tarn: Lab, isolated_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("BRAVE_API_KEY", "test-key")
    settings = load_settings(home=isolated_home, search="searxng", searxng_url=tarn.sites[0])
    panel = default_roster(settings, KeyStore(settings.home, settings.keys))
    names = [a.name for a in panel.agents]
    assert names == ["Manager (extractive)", "Searcher-searxng", "Searcher-brave"]
    assert panel.chief_author == "Manager (extractive)"
    monkeypatch.delenv("BRAVE_API_KEY")
    lines: list[str] = []
    out = isolated_home / "o.md"
    result = asyncio.run(
        synth_async(
            TOPIC, output=out, echo=lines.append,
            settings=load_settings(home=isolated_home, search="searxng",
                                   searxng_url=tarn.sites[0], allow_hosts=["127.0.0.0/8"]),
        )
    )  # fmt: skip
    assert lines and "Searcher-searxng" in lines[0] and "MANAGER" in lines[0]
    assert result.signal == "[MISMATCH]"  # one configured provider: pre-flight decides
    assert "1 agent(s) can search" in out.read_text()
