"""``assay deep`` end to end over loopback labs: extractive and scripted-model paths."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from assay.cli import app
from assay.config import Settings, load_settings
from assay.errors import IntegrityError
from assay.gather.documents import Document
from assay.lab import Lab, serve_lab
from assay.models.testing import ScriptedModel
from assay.protocols.deep import deep_research_async, output, worker
from assay.protocols.deep.detect import NoSearchMethod
from assay.protocols.deep.plan import model_angles
from assay.store.jsonl import read_jsonl

runner = CliRunner()
TOPIC = "Halvorsen Lighthouse"


def settings_for(lab: Lab, home: Path) -> Settings:
    return load_settings(
        home=home, search="searxng", searxng_url=lab.sites[0], allow_hosts=["127.0.0.0/8"]
    )


def log(run_dir: str) -> list[dict[str, Any]]:
    return read_jsonl(Path(run_dir) / "run.log.jsonl").records


def test_extractive_run_prints_method_then_full_plan_before_any_worker(
    lab: Lab, isolated_home: Path, tmp_path: Path
) -> None:
    lines: list[str] = []
    result = asyncio.run(
        deep_research_async(
            TOPIC, settings=settings_for(lab, isolated_home), max_directions=3,
            output=tmp_path, echo=lines.append,
        )
    )  # fmt: skip
    assert lines[0].startswith(
        "Search method: built-in — the searxng search provider answered the probe query"
    )
    assert lines[1].startswith("Plan:") and lines[1].count("Queries:") == 3
    assert lines[1].count("Acceptance: ") == 3 and "Output: " in lines[1]
    assert any(line.startswith("Direction 1 score: ") for line in lines[2:])
    tail = lines[-6:]
    assert tail[0] == f"Research complete: {TOPIC}"
    assert tail[1].startswith("Key findings: ") and tail[2].startswith("Confidence: ")
    assert "sources across 3 directions" in tail[2]
    assert tail[3].startswith("Gaps: ") and tail[4].startswith("Full report: ")
    events = log(result.run_dir)
    types = [e["type"] for e in events]
    assert types.index("deep.search_method") < types.index("plan.written")
    first_worker = next(
        i
        for i, e in enumerate(events)
        if e["type"] == "phase.started" and e["data"]["phase"] == "worker"
    )
    assert types.index("plan.written") < first_worker < types.index("tool.search")
    assert "deep.direction_scored" in types and types[-1] == "run.finished"
    report = Path(result.report)
    assert report.name.startswith("research_halvorsen-lighthouse_") and report.parent == tmp_path
    assert output.check_integrity(report) == []
    text = report.read_text()
    assert "**[FACT]**" in text and "**[SYNTHESIS]**" in text and "(claim_0" in text
    assert (Path(result.run_dir) / "report.md").read_text() == text
    assert result.status == "done" and result.engine == "extractive"
    assert not list(Path(lines[1].split("Output: ")[1].splitlines()[0]).parent.glob("*"))
    assert runner.invoke(app, ["verify", result.run_id]).exit_code == 0
    shown = runner.invoke(app, ["show", result.run_id])
    assert "Search method: built-in" in shown.output


def test_a_crashed_worker_is_noted_and_the_others_go_on(
    lab: Lab, isolated_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = worker.Worker.run

    async def crashing(self: worker.Worker, task: worker.WorkerTask) -> Any:
        if task.number == 1:
            raise RuntimeError("boom in worker")
        return await real(self, task)

    monkeypatch.setattr(worker.Worker, "run", crashing)
    result = asyncio.run(
        deep_research_async(
            TOPIC, settings=settings_for(lab, isolated_home), max_directions=2,
            output=tmp_path, echo=None,
        )
    )  # fmt: skip
    crashed = [d for d in result.directions if d["crashed"]]
    assert [d["number"] for d in crashed] == [1] and "boom in worker" in crashed[0]["crashed"]
    assert all(d["score"] is not None for d in result.directions if d["number"] != 1)
    text = Path(result.report).read_text()
    assert "Direction 1:" in text and "worker crashed" in text


def test_escalation_and_insufficient_data_marking(
    lab: Lab, isolated_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(worker, "MAX_SOURCES", 0)  # every worker ends with 0 sources
    result = asyncio.run(
        deep_research_async(
            TOPIC, settings=settings_for(lab, isolated_home), max_directions=1,
            output=tmp_path, echo=None,
        )
    )  # fmt: skip
    (direction,) = result.directions
    assert (
        direction["escalated"]
        and direction["insufficient"]
        and len(direction["retry_queries"]) == 3
    )
    text = Path(result.report).read_text()
    assert "[insufficient data — score: 0.0]" in text
    for query in direction["queries"]:
        assert f'"{query}"' in text
    escalation = next(e for e in log(result.run_dir) if e["type"] == "deep.escalation")
    assert escalation["data"]["queries"] == direction["retry_queries"]


def test_an_integrity_failure_keeps_the_temp_dir_and_exits_non_zero(
    lab: Lab, isolated_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(output, "bibliography", lambda cited, records: "[99] nothing")
    monkeypatch.setattr(worker, "MAX_SOURCES", 1)
    monkeypatch.setenv("TMPDIR", str(tmp_path / "tmp"))
    (tmp_path / "tmp").mkdir()
    import tempfile

    monkeypatch.setattr(tempfile, "tempdir", None)
    args = ["deep", TOPIC, "--max-directions", "1", "--output", str(tmp_path), "--home",
            str(isolated_home), "--search", "searxng", "--searxng-url", lab.sites[0],
            "--allow-host", "127.0.0.0/8"]  # fmt: skip
    result = runner.invoke(app, args)
    assert result.exit_code == IntegrityError.exit_code
    kept = list((tmp_path / "tmp").glob("deep-research-*"))
    assert len(kept) == 1 and list(kept[0].glob("*.md"))


def test_no_search_method_stops_the_run(isolated_home: Path, tmp_path: Path) -> None:
    settings = load_settings(home=isolated_home, search="local")
    lines: list[str] = []
    with pytest.raises(NoSearchMethod):
        asyncio.run(
            deep_research_async(TOPIC, settings=settings, output=tmp_path, echo=lines.append)
        )
    assert lines[0].startswith("Search method: none — ") and "playwright-cli" in lines[0]
    assert not list(tmp_path.glob("research_*"))


@pytest.fixture(scope="module")
def disagreeing_lab() -> Iterator[Lab]:
    docs = [
        Document(doc_id=f"d{n}", title=f"Brenna tower report {n}", text=text, url=None)
        for n, text in enumerate([
            "The Brenna signal tower is 41 metres tall. It was raised by the harbour board.",
            "The Brenna signal tower is 58 metres tall, a survey of the harbour found in 2020.",
        ])
    ]  # fmt: skip
    with serve_lab(docs, sites=2, faults=False, first_address="127.0.0.30") as running:
        yield running


def test_a_contradiction_is_reported_with_both_sides(
    disagreeing_lab: Lab, isolated_home: Path, tmp_path: Path
) -> None:
    result = asyncio.run(
        deep_research_async(
            "Brenna signal tower", settings=settings_for(disagreeing_lab, isolated_home),
            max_directions=1, output=tmp_path, echo=None,
        )
    )  # fmt: skip
    text = Path(result.report).read_text()
    conflict = next(line for line in text.splitlines() if "Sources conflict" in line)
    assert "41 metres" in conflict and "58 metres" in conflict
    assert output.check_integrity(Path(result.report)) == []


def test_a_scripted_model_plans_the_directions(
    lab: Lab, isolated_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(worker, "MAX_SOURCES", 1)

    def script(request: Any) -> object:
        prompt = request.messages[-1].content
        if prompt.startswith("QUESTION:"):
            return {"directions": [
                {"direction": f"Angle {n} of the lighthouse", "source_types": "official",
                 "queries": [f"Halvorsen Lighthouse {w}" for w in ("tower", "keeper", "lamp")]}
                for n in range(1, 9)
            ]}  # fmt: skip
        if "SENTENCES:" in prompt:
            return {"claims": [{"claim": "The tower is 41 metres tall.", "sentence": 1}]}
        if "EVIDENCE:" in prompt:
            return {"label": "NOT_ENOUGH_INFO", "sentence": 0}
        return {
            "synonym": "lighthouse tower",
            "negation": "not a lighthouse",
            "domain_specific": "maritime light",
        }

    lines: list[str] = []
    result = asyncio.run(
        deep_research_async(
            TOPIC, settings=settings_for(lab, isolated_home), max_directions=6,
            output=tmp_path, model=ScriptedModel(script), echo=lines.append,
        )
    )  # fmt: skip
    assert result.model == "scripted:model" and len(result.directions) == 6
    assert "Direction 1: Angle 1 of the lighthouse; Angle 2 of the lighthouse" in lines[1]
    assert result.status == "done"
    payload = json.dumps(result.to_json())
    assert "search_method" in payload


def test_a_model_query_that_names_no_entity_of_the_question_gets_one() -> None:
    plan = {"directions": [{
        "direction": "To determine what Vell is", "source_types": "encyclopedias",
        "queries": ["What is a ferryman?", "ferrying", "Osric ferryman facts"],
    }]}  # fmt: skip
    angles = asyncio.run(
        model_angles(
            "If Osric is a ferryman Vell is what?", ScriptedModel([plan]), budget=None, meter=None
        )
    )
    assert angles[0].queries == ("What is a ferryman Vell", "ferrying Vell", "Osric ferryman facts")
