"""``assay deep`` scores the evidence it has: relevance, absolute confidence, counted
sources; plans from the question; findings kept in the run (resume, show)."""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from assay.cli import app
from assay.config import Settings, load_settings
from assay.errors import RunCancelled
from assay.gather.documents import Document
from assay.lab import Lab, serve_lab
from assay.models.testing import ScriptedModel
from assay.protocols.deep import deep_research_async, deep_resume_async, output, protocol, worker
from assay.protocols.deep.findings import FindingsStore
from assay.protocols.deep.plan import plan_directions
from assay.store.jsonl import read_jsonl

runner = CliRunner()
SOLID = [  # one fact, stated by three independent pages in their own surroundings
    "The harbour board surveyed the north pier in spring. The Brenna signal tower is 41 "
    "metres tall. Its lamp room was glazed again after a storm.",
    "Engineers climbed the structure with a measuring tape last year. The Brenna signal "
    "tower is 41 metres tall. Gulls nest on its gallery and the paint is renewed each decade.",
    "A school class counted 212 steps on the stairway. The Brenna signal tower is 41 metres "
    "tall. Walking guides to the coast recommend the view from the top.",
]
OFF_TOPIC = [
    "The Halvorsen lighthouse tower is built of grey granite. Its keeper retired in 1987.",
    "Tall ships visit the Skarvik harbour each July for the summer regatta.",
]


@pytest.fixture(scope="module")
def tower_lab() -> Iterator[Lab]:
    docs = [
        Document(doc_id=f"b{n}", title=f"Coastal notes {n}", text=text, url=None)
        for n, text in enumerate([*SOLID, *OFF_TOPIC])
    ]
    with serve_lab(docs, sites=3, faults=False, first_address="127.0.0.70") as running:
        yield running


def settings_for(lab: Lab, home: Path) -> Settings:
    return load_settings(
        home=home, search="searxng", searxng_url=lab.sites[0], allow_hosts=["127.0.0.0/8"]
    )


def deep(lab: Lab, home: Path, out: Path, topic: str, **kwargs: Any) -> Any:
    return asyncio.run(
        deep_research_async(
            topic, settings=settings_for(lab, home), max_directions=1, output=out, **kwargs
        )
    )


def test_a_factoid_question_is_planned_from_its_entities(tmp_path: Path) -> None:
    directions, _ = asyncio.run(plan_directions("Who directed the film Inception?", tmp_path))
    assert 3 <= len(directions) <= 6
    text = " ".join(f"{d.description} {' '.join(d.queries)}" for d in directions).lower()
    for template in ("mechanisms", "forecast", "outlook", "regulation", "statistics"):
        assert template not in text
    assert all(any("Inception" in q for q in d.queries) for d in directions)
    long_topic = "Shipping routes of the northern sea " * 300  # ~10,800 characters
    directions, _ = asyncio.run(plan_directions(long_topic, tmp_path))
    assert all(len(q) <= 400 for d in directions for q in d.queries)
    assert all(len(d.description) <= 400 for d in directions)


def test_thin_off_topic_evidence_scores_below_six_and_escalates(
    tower_lab: Lab, isolated_home: Path, tmp_path: Path
) -> None:
    result = deep(tower_lab, isolated_home, tmp_path, "How tall is the Ormsund radio mast?")
    (direction,) = result.directions
    assert direction["first_score"] < 6.0 and direction["escalated"]
    assert direction["parts"]["confidence"] == 0.0  # no relevant fact has any confidence
    facts = [f for fs in FindingsStore(Path(result.run_dir)).findings() for f in fs.facts]
    assert facts and not any(f.relevant for f in facts)  # recorded, but off-topic
    text = Path(result.report).read_text()
    findings = text.split("## Findings", 1)[1].split("## Research directions", 1)[0]
    assert "- **[FACT]**" not in findings and "granite" not in text.split("## Research")[0]
    assert "No direct answer found" in text.split("## Findings")[0]


def test_solid_evidence_scores_six_or_more_without_escalation(
    tower_lab: Lab, isolated_home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    result = deep(tower_lab, isolated_home, tmp_path, "How tall is the Brenna signal tower?")
    assert capsys.readouterr().out == ""  # a library call prints nothing unless asked
    (direction,) = result.directions
    assert direction["score"] >= 6.0 and not direction["escalated"], direction
    assert direction["parts"]["confidence"] == 10.0  # verified by independent origins
    text = Path(result.report).read_text()
    summary = text.split("## Executive summary", 1)[1]
    assert summary.lstrip().startswith("**Answer:**") and "41 metres" in summary.split("\n\n")[1]
    fetched = [s for fs in FindingsStore(Path(result.run_dir)).findings() for s in fs.fetched()]
    assert len({s.url for s in fetched}) == len(fetched)  # each URL counted once


def test_an_interrupted_run_resumes_at_its_next_direction(
    lab: Lab, isolated_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = worker.Worker.run
    calls: list[int] = []

    async def interrupted(self: worker.Worker, task: worker.WorkerTask) -> Any:
        calls.append(task.number)
        if task.number == 2 and calls.count(2) == 1:
            raise RunCancelled("interrupted by the test")
        return await real(self, task)

    monkeypatch.setattr(worker.Worker, "run", interrupted)
    monkeypatch.setattr(worker, "MAX_SOURCES", 1)
    settings = settings_for(lab, isolated_home)
    with pytest.raises(RunCancelled):
        asyncio.run(
            deep_research_async(
                "Halvorsen Lighthouse", settings=settings, max_directions=3, output=tmp_path
            )
        )
    (run_dir,) = [p for p in (isolated_home / "runs").iterdir() if p.is_dir()]
    assert [r.number for r in FindingsStore(run_dir).reviews()] == [1]
    first = calls.count(1)
    args = ["resume", run_dir.name, "--json", "--home", str(isolated_home), "--search",
            "searxng", "--searxng-url", lab.sites[0], "--allow-host", "127.0.0.0/8"]  # fmt: skip
    resumed = runner.invoke(app, args)  # the CLI's resume goes to the deep protocol
    assert resumed.exit_code == 0, resumed.output
    result = json.loads(resumed.stdout)
    assert calls.count(1) == first  # direction 1 is not run again
    assert [d["number"] for d in result["directions"]] == [1, 2, 3]
    assert result["status"] == "done" and Path(result["report"]).is_file()
    kinds = [r["kind"] for r in read_jsonl(run_dir / "findings.jsonl").records]
    assert kinds.count("review") == 3
    shown = runner.invoke(app, ["show", run_dir.name, "--home", str(isolated_home)])
    assert ("directions" in shown.output and "insufficient" in shown.output) or "ok" in shown.output


def test_a_run_interrupted_before_its_plan_resumes_by_planning(
    lab: Lab, isolated_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = protocol.detect_search_method
    calls: list[str] = []

    async def interrupted(*args: Any, **kwargs: Any) -> Any:
        calls.append("detect")
        if len(calls) == 1:  # cancelled while it probes the search tools
            raise RunCancelled("interrupted by the test")
        return await real(*args, **kwargs)

    monkeypatch.setattr(protocol, "detect_search_method", interrupted)
    settings = settings_for(lab, isolated_home)
    with pytest.raises(RunCancelled):
        deep(lab, isolated_home, tmp_path, "Halvorsen Lighthouse")
    (run_dir,) = [p for p in (isolated_home / "runs").iterdir() if p.is_dir()]
    assert not (run_dir / "directions.json").exists()
    result = asyncio.run(deep_resume_async(run_dir.name, settings=settings))
    assert result.status == "done" and Path(result.report).is_file()
    assert calls == ["detect", "detect"]  # the resumed run probed the tools, then planned
    assert [r.number for r in FindingsStore(run_dir).reviews()] == [1]


def _numbered(prompt: str, wanted: str) -> int:
    found = re.findall(r"^\[(\d+)\] (.*)$", prompt, re.M)
    return next((int(n) for n, text in found if wanted in text), 1)


def test_a_scripted_model_writes_a_grounded_synthesis(
    tower_lab: Lab, isolated_home: Path, tmp_path: Path
) -> None:
    def script(request: Any) -> object:
        prompt = request.messages[-1].content
        if prompt.startswith("QUESTION:"):
            return {"directions": [{"direction": "How tall the Brenna signal tower is",
                                    "source_types": "any",
                                    "queries": ["Brenna signal tower", "Brenna tower height",
                                                "Brenna signal tower tall"]}]}  # fmt: skip
        if "SENTENCES:" in prompt:
            number = _numbered(prompt, "41 metres")
            return {"claims": [{"claim": "The Brenna signal tower is 41 metres tall.",
                                "sentence": number}]}  # fmt: skip
        if "EVIDENCE:" in prompt:
            return {"label": "SUPPORTS", "sentence": _numbered(prompt, "41 metres")}
        if prompt.startswith("STATEMENTS:"):
            return {"sentences": [
                {"text": "The Brenna signal tower is 41 metres tall.", "statements": [1]},
                {"text": "It was painted red in 1990 by volunteers.", "statements": [1]},
            ]}  # fmt: skip
        if prompt.startswith("CLAIMS:"):
            return {"answer": "41 metres", "claims": [1]}
        return {"synonym": "a", "negation": "b", "domain_specific": "c"}

    model = ScriptedModel(script)
    result = deep(
        tower_lab, isolated_home, tmp_path, "How tall is the Brenna signal tower?", model=model
    )
    text = Path(result.report).read_text()
    summary = text.split("## Executive summary", 1)[1].lstrip()
    assert summary.startswith("**Answer:** 41 metres [")
    # the answer step read the claim in its passage, under its page's title
    (asked,) = [r for r in model.requests if r.messages[-1].content.startswith("CLAIMS:")]
    assert "\nPAGE: " in asked.messages[-1].content
    synthesis = next(line for line in text.splitlines() if line.startswith("The Brenna signal"))
    assert "[1]" in synthesis or "[2]" in synthesis
    assert "painted red" not in text and "1 written sentence(s) dropped" in text
    assert "**[SYNTHESIS]** _Analysis written by scripted:model" in text
    assert output.check_integrity(Path(result.report)) == []


def test_phase0_probes_the_tool_not_the_topic(
    tower_lab: Lab, isolated_home: Path, tmp_path: Path
) -> None:
    from assay.protocols.searchwatch import NoSearchResults

    lines: list[str] = []
    with pytest.raises(NoSearchResults, match="every search came back empty"):
        deep(tower_lab, isolated_home, tmp_path, "Zorblax", echo=lines.append)  # nothing on it
    assert "probe query 'history'" in lines[0]
    [run] = (isolated_home / "runs").iterdir()
    log = [json.loads(line) for line in (run / "run.log.jsonl").read_text().splitlines()]
    [method] = [r["data"] for r in log if r["type"] == "deep.search_method"]
    assert method["method"] == "built-in"  # the probe found the tool working


@pytest.fixture(scope="module")
def hop_lab() -> Iterator[Lab]:
    docs = [
        Document(doc_id="town", title="Varholm", url=None, text=(
            "Varholm is a harbour town on the west coast. Several films, such as "
            '"Grey Tide" (1986) and "North Light" (2001), were shot in or around Varholm.')),
        Document(doc_id="film", title="Grey Tide", url=None, text=(
            "Grey Tide is a 1986 drama film directed by Ilse Brandt. It follows a ferry crew.")),
    ]  # fmt: skip
    with serve_lab(docs, sites=2, faults=False, first_address="127.0.0.76") as running:
        yield running


def test_a_later_direction_is_adjusted_to_the_next_hop(
    hop_lab: Lab, isolated_home: Path, tmp_path: Path
) -> None:
    lines: list[str] = []
    result = asyncio.run(
        deep_research_async(
            "Who directed the film that was shot in Varholm in 1986?",
            settings=settings_for(hop_lab, isolated_home), max_directions=3, output=tmp_path,
            echo=lines.append,
        )
    )  # fmt: skip
    assert any(line.startswith("Direction 3 adjusted to the next hop") for line in lines)
    assert [d["name"] for d in result.directions][-1] == "Next hop: Grey Tide"
    text = Path(result.report).read_text()
    assert "directed by Ilse Brandt" in text.split("## Research directions")[0]
    plan = (Path(result.run_dir) / "plan.md").read_text()
    assert "Direction 3: What sources say about Grey Tide" in plan
