"""The research agent end to end over the lab: real HTTP, the real fetcher, the extractive
engine and scripted models."""

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

from assay.cli import app
from assay.config import Settings, load_settings
from assay.lab import Lab
from assay.models.testing import ScriptedModel
from assay.protocols.research import ask_async, research_async
from assay.store.jsonl import read_jsonl

runner = CliRunner()
TOPIC = "How tall is the Halvorsen Lighthouse?"


def lab_settings(lab: Lab, home: Path) -> Settings:
    return load_settings(
        home=home, search="searxng", searxng_url=lab.sites[0], allow_hosts=["127.0.0.0/8"]
    )


def events(run_dir: str | Path) -> list[dict[str, Any]]:
    return read_jsonl(Path(run_dir) / "run.log.jsonl").records


def test_the_five_phases_in_order_with_every_rule(lab: Lab, isolated_home: Path) -> None:
    result = asyncio.run(research_async(TOPIC, settings=lab_settings(lab, isolated_home)))
    log = events(result.run_dir)
    types = [e["type"] for e in log]
    first_search = types.index("tool.search")
    skills = [e["data"]["name"] for e in log[:first_search] if e["type"] == "tool.read_skill"]
    assert set(skills) >= {
        "research-plan",
        "search-strategy",
        "source-quality",
        "claim-verification",
        "report-structure",
        "tool-efficiency",
    }
    assert types.index("plan.written") < first_search
    search = log[first_search]["data"]
    assert 3 <= len(search["queries"]) <= 10 and search["resultCount"] > 0
    # claims are created right after each source is read, never batched at the end
    opened = [i for i, t in enumerate(types) if t == "tool.open_url"]
    created = [i for i, t in enumerate(types) if t == "claim.created"]
    assert len(opened) == 5 and created
    assert created[0] < opened[1]
    assert min(i for i, t in enumerate(types) if t == "claim.verified") > opened[-1]
    assert types[-1] == "run.finished"
    assert "report.updated" in types
    run_dir = Path(result.run_dir)
    plan = (run_dir / "plan.md").read_text()
    assert "## Research questions" in plan and plan.count("- [x]") == 5
    report = (run_dir / "report.md").read_text()
    for section in ("## Executive summary", "## Findings", "## Sources", "extractive engine"):
        assert section in report
    assert result.status == "done" and result.engine == "extractive"
    assert sum(result.claims.values()) == len(created)
    assert runner.invoke(app, ["verify", result.run_id]).exit_code == 0


def test_a_model_that_searches_first_is_held_to_the_ritual(lab: Lab, isolated_home: Path) -> None:
    def script(request: Any) -> object:
        prompt = request.messages[-1].content
        if "Searches done: 0" in prompt or "Reply again" in prompt:
            return {
                "action": {
                    "action": "web_search",
                    "queries": [TOPIC, "Halvorsen", "lighthouse height"],
                }
            }
        if "SENTENCES:" in prompt:  # each page's first sentence, as written
            first = prompt.partition("[1] ")[2].partition("\n")[0]
            return {"claims": [{"claim": first, "sentence": 1}]}
        if "EVIDENCE:" in prompt:
            return {"label": "NOT_ENOUGH_INFO", "sentence": 0}
        if "plan the next web search" in request.system:
            return {"missing": "", "queries": []}
        if "CLAIMS:" in prompt:  # the answer step: its answer must be in the cited claim
            return {"answer": "41 metres", "claims": [1]}
        return {"action": {"action": "finish", "answer": "an unchecked free-text answer"}}

    model = ScriptedModel(script)
    result = asyncio.run(
        research_async(TOPIC, settings=lab_settings(lab, isolated_home), model=model)
    )
    log = events(result.run_dir)
    types = [e["type"] for e in log]
    skills = [e for e in log if e["type"] == "tool.read_skill"]
    # the skills are read by the harness, before the model is asked anything
    assert len(skills) == 6 and types.index("usage") > types.index("tool.read_skill")
    # a search before the plan is not in the schema: refused, and the plan comes first
    warnings = [e["data"]["message"] for e in log if e["type"] == "warning"]
    assert any("gave no valid action" in w for w in warnings)
    assert types.index("plan.written") < types.index("tool.search")
    # the policy's free-text answer is not checked against any claim, so it is not given:
    # the answer is the answer step's, resting on claims a quote supports
    (given,) = [e["data"] for e in log if e["type"] == "research.answer"]
    assert given["method"] == "model:scripted:model" and result.model == "scripted:model"
    assert result.answer in ("", "41 metres") and given["text"] == result.answer
    lines = (Path(result.run_dir) / "claims.jsonl").read_text().splitlines()
    claims = {c["id"]: c for c in map(json.loads, lines)}
    assert all(claims[i]["status"] in ("verified", "weak") for i in given["claimIds"])
    reads = [e["data"]["url"] for e in log if e["type"] == "tool.open_url"]
    assert len(reads) == len(result.sources) > 1  # code reads the offered results in order
    report = Path(result.report or "").read_text()
    assert "unchecked free-text" not in report


def test_ask_escalates_a_research_grade_question_in_one_run(lab: Lab, isolated_home: Path) -> None:
    """The research agent takes over in the ask's own run: no empty 0/0 ask run beside
    it, and the run ends through the normal lifecycle (one run.finished)."""
    settings = lab_settings(lab, isolated_home)
    result = asyncio.run(
        ask_async("Compare the history of the Halvorsen Lighthouse", settings=settings)
    )
    assert result.escalated_from == result.run_id and result.protocol == "research"
    assert [p.name for p in Path(result.run_dir).parent.iterdir()] == [result.run_id]
    log = events(Path(result.run_dir))
    types = [e["type"] for e in log]
    escalation = next(e for e in log if e["type"] == "tool.request_full_research")
    assert escalation["data"]["runId"] == result.run_id
    assert "multi-source verification" in escalation["data"]["reason"]
    assert types.count("run.started") == 1 and types.count("run.finished") == 1
    assert types[-1] == "run.finished" and log[-1]["data"]["status"] == "done"
    info = json.loads((Path(result.run_dir) / "run.json").read_text())
    assert info["status"] == "done" and info["protocol"] == "research"
    assert "multi-source verification" in info["escalated"]
    assert len(result.sources) > 0 and sum(result.claims.values()) > 0


def test_ask_answers_a_simple_question_directly(lab: Lab, isolated_home: Path) -> None:
    result = runner.invoke(
        app,
        [
            "ask",
            TOPIC,
            "--search",
            "searxng",
            "--searxng-url",
            lab.sites[0],
            "--allow-host",
            "127.0.0.0/8",
            "--json",
            "--home",
            str(isolated_home),
        ],
    )
    assert result.exit_code == 0, result.output
    payload = json.loads(result.output)
    assert payload["protocol"] == "ask" and payload["escalated_from"] is None
    assert len(payload["sources"]) == 2 and payload["answer"]
    assert set(payload) >= {
        "run_id",
        "status",
        "report",
        "answer",
        "claims",
        "sources",
        "usage",
        "engine",
        "model",
    }


def test_code_agent_mode_researches_a_folder(tmp_path: Path, isolated_home: Path) -> None:
    workspace = tmp_path / "repo"
    (workspace / "src").mkdir(parents=True)
    (workspace / "README.md").write_text(
        "# Widget\n\nThe widget cache keeps 128 entries by default.\n"
    )
    (workspace / "src" / "cache.py").write_text(
        '"""The widget cache."""\n'
        "MAX_ENTRIES = 128  # The widget cache keeps 128 entries by default.\n"
    )
    (workspace / ".git").mkdir()
    (workspace / ".git" / "config").write_text("secret cache stuff")
    result = asyncio.run(
        research_async("widget cache entries", settings=load_settings(), workspace=workspace)
    )
    log = events(result.run_dir)
    tools = [e["data"]["tool"] for e in log if e["type"] == "tool.workspace"]
    assert tools[0] == "listWorkspaceDir" and "grepWorkspace" in tools
    assert "tool.search" not in [e["type"] for e in log]
    urls = {s["url"] for s in result.sources}
    assert "workspace://README.md" in urls and not any(".git" in u for u in urls)
    assert sum(result.claims.values()) >= 1
    assert runner.invoke(app, ["verify", result.run_id]).exit_code == 0


WRITER = """
import asyncio, sys
from pathlib import Path
from assay.config import load_settings
from assay.protocols.research import research_async
settings = load_settings(home=Path(sys.argv[1]), search="searxng", searxng_url=sys.argv[2],
                         allow_hosts=["127.0.0.0/8"])
asyncio.run(research_async(sys.argv[3], settings=settings, sources=5))
"""


def test_killed_mid_run_keeps_its_claims_and_resume_finishes(lab: Lab, isolated_home: Path) -> None:
    env = {k: v for k, v in os.environ.items()}
    writer = subprocess.Popen(
        [sys.executable, "-c", WRITER, str(isolated_home), lab.sites[0], TOPIC], env=env
    )
    runs = isolated_home / "runs"
    deadline = time.monotonic() + 30
    claims_file = None
    while time.monotonic() < deadline:
        found = list(runs.glob("*/claims.jsonl")) if runs.is_dir() else []
        if found and found[0].read_text().count("\n") >= 1:
            claims_file = found[0]
            break
        time.sleep(0.05)
    writer.send_signal(signal.SIGKILL)
    writer.wait()
    assert claims_file is not None, "the writer recorded no claim in 30 s"
    before = read_jsonl(claims_file).records
    run_id = claims_file.parent.name
    assert json.loads((claims_file.parent / "run.json").read_text())["status"] == "running"
    assert (
        runner.invoke(app, ["runs", "--json", "--home", str(isolated_home)]).output.count(
            '"interrupted"'
        )
        == 1
    )
    read_before = [
        e["data"]["url"] for e in events(claims_file.parent) if e["type"] == "tool.open_url"
    ]

    result = runner.invoke(
        app,
        [
            "resume",
            run_id[:-3],
            "--home",
            str(isolated_home),
            "--allow-host",
            "127.0.0.0/8",
            "--json",
        ],
    )
    assert result.exit_code == 0, result.output
    after = read_jsonl(claims_file).records
    assert [(c["id"], c["text"]) for c in after[: len(before)]] == [
        (c["id"], c["text"]) for c in before
    ]
    log = events(claims_file.parent)
    opened = [e["data"]["url"] for e in log if e["type"] == "tool.open_url"]
    assert len(opened) == len(set(opened)), "a recorded fetch was repeated"
    assert set(read_before) <= set(opened)
    assert any(e["type"] == "run.started" and e["data"].get("resumed") for e in log)
    info = json.loads((claims_file.parent / "run.json").read_text())
    assert info["status"] == "done" and (claims_file.parent / "report.md").is_file()
    # the resumed run continued the hash chain the killed one started
    verified = runner.invoke(app, ["verify", run_id, "--home", str(isolated_home), "--json"])
    assert verified.exit_code == 0, verified.output
    assert json.loads(verified.output)["warnings"] == []


def test_a_budget_ending_exits_3_and_says_where_the_partial_report_is(
    lab: Lab, isolated_home: Path
) -> None:
    result = runner.invoke(
        app,
        ["research", TOPIC, "--search", "searxng", "--searxng-url", lab.sites[0],
         "--allow-host", "127.0.0.0/8", "--home", str(isolated_home), "--quiet"],
        env={"ASSAY_BUDGET_FETCHES": "2"},
    )  # fmt: skip
    assert result.exit_code == 3, result.output
    assert "fetch budget of 2 exhausted" in result.output
    report = result.output.split("partial report: ", 1)[1].split()[0]
    text = Path(report).read_text()
    assert "Partial report" in text and "fetch budget of 2" in text


def test_a_model_that_times_out_never_ends_the_run(lab: Lab, isolated_home: Path) -> None:
    from assay.models import ModelTimeout

    def script(request: Any) -> object:
        prompt = request.messages[-1].content
        if "SENTENCES:" in prompt or "Searches done: 1" in prompt:
            return ModelTimeout("scripted:model: no reply within 1.0 s")
        if "Searches done: 0" in prompt:
            return {"action": {"action": "web_search", "queries": [TOPIC, "Halvorsen", "tower"]}}
        if "EVIDENCE:" in prompt:
            return {"label": "NOT_ENOUGH_INFO", "sentence": 0}
        return {"action": {"action": "finish", "answer": ""}}

    result = asyncio.run(
        research_async(
            TOPIC, settings=lab_settings(lab, isolated_home), model=ScriptedModel(script)
        )
    )
    assert result.status == "done"
    codes = [e["data"]["code"] for e in events(result.run_dir) if e["type"] == "warning"]
    assert "policy_fallback" in codes and "extractor_fallback" in codes
    assert len(result.sources) >= 2 and sum(result.claims.values()) > 0
    # every timed-out attempt still costs its prompt: the hop loop stops at its token budget
    ended = [e["data"] for e in events(result.run_dir) if e["type"] == "research.gathered"]
    assert [e["reason"].split(" (")[0] for e in ended] == [
        "token budget of 8,000 model tokens reached"
    ]


def test_the_model_fills_the_writing_slots_and_code_runs_the_loop() -> None:
    from datetime import date

    from assay.protocols.research.actions import RequestFullResearch, WebSearch, WritePlan
    from assay.protocols.research.policy import AgentState, model_slot
    from assay.protocols.research.skills import BOOTSTRAP

    state = AgentState(topic=TOPIC, mode="web", today=date(2026, 11, 30), target_sources=5)
    assert model_slot(state) is None  # the bootstrap skills are read by code
    state.skills_read = set(BOOTSTRAP)
    assert model_slot(state) == (WritePlan,)
    state.plan = ["How tall is the Halvorsen tower?"]
    assert model_slot(state) is None  # the first searches are the plan's questions
    state.searches, state.offered = 1, [("Lighthouse", "http://a.test/1")]
    assert model_slot(state) is None  # what to read, and when to stop, is code's
    ask = AgentState(topic=TOPIC, mode="ask", today=date(2026, 11, 30), target_sources=2)
    assert model_slot(ask) == (WebSearch, RequestFullResearch)


def test_the_models_searches_keep_the_question_and_three_distinct_queries() -> None:
    from datetime import date

    from assay.gather.search.web_search import normalise_queries
    from assay.protocols.research.policy import AgentState, searchable

    state = AgentState(topic=TOPIC, mode="web", today=date(2026, 11, 30), target_sources=5)
    repeated = searchable(state, [TOPIC.upper(), "lighthouse", "Lighthouse"])
    assert repeated[0] == TOPIC and len(repeated) >= 3
    assert normalise_queries(repeated) == repeated  # what webSearch accepts, unchanged
    kept = searchable(state, ["Halvorsen height", "Halvorsen tower", "Skarvik cape"])
    assert kept == [TOPIC, "Halvorsen height", "Halvorsen tower", "Skarvik cape"]


def test_plan_questions_that_name_nothing_of_the_topic_are_left_out(
    lab: Lab, isolated_home: Path
) -> None:
    """And the questions kept are the first searches, after the question itself: the model
    writes the plan once and is not asked again for queries."""

    def script(request: Any) -> object:
        prompt = request.messages[-1].content
        if "Plan written: no" in prompt:
            questions = ["How tall is the Halvorsen tower?", "What is the evidence for this?"]
            return {"action": {"action": "write_plan", "questions": questions, "approach": "Look."}}
        if "Searches done: 0" in prompt:
            return {"action": {"action": "web_search", "queries": ["Skarvik cape", "x", "y"]}}
        if "SENTENCES:" in prompt:
            return {"claims": []}
        if "plan the next web search" in request.system:
            return {"missing": "", "queries": []}
        return {"answer": "", "claims": []}

    model = ScriptedModel(script)
    result = asyncio.run(
        research_async(TOPIC, settings=lab_settings(lab, isolated_home), model=model)
    )
    plan = (Path(result.run_dir) / "plan.md").read_text()
    assert "How tall is the Halvorsen tower?" in plan and "evidence for this" not in plan
    log = events(result.run_dir)
    assert "plan_off_topic" in [e["data"].get("code") for e in log if e["type"] == "warning"]
    first = next(e["data"]["queries"] for e in log if e["type"] == "tool.search")
    assert first[:2] == [TOPIC, "How tall is the Halvorsen tower?"] and len(first) >= 3
    assert "Skarvik cape" not in first
    assert sum("TOPIC:" in r.prompt for r in model.requests) == 1
