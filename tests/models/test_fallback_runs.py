"""Real runs over the lab with a model whose every reply is invalid: each step that tries
the model, else the rules, records its fallback as a ``step.fallback`` event in the run's
log (models/fallback.py), and the run still ends done."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from assay.lab import Lab
from assay.models.testing import ScriptedModel
from assay.protocols.deep import deep_research_async, worker
from assay.protocols.web_research import web_research
from tests.protocols.deep.test_protocol import TOPIC as DEEP_TOPIC
from tests.protocols.deep.test_protocol import settings_for
from tests.protocols.research.test_hoploop import TWO_HOPS, press_lab, run
from tests.protocols.web_research.test_goldens import TOPIC as FERRY_TOPIC
from tests.protocols.web_research.test_goldens import ferry_lab, lab_options

__all__ = ["ferry_lab", "press_lab"]  # the fixtures, shared with their own tests


def invalid_model() -> ScriptedModel:
    return ScriptedModel(lambda request: "this is not JSON")


def fallbacks(run_dir: Path | str) -> dict[str, list[dict[str, Any]]]:
    lines = (Path(run_dir) / "run.log.jsonl").read_text().splitlines()
    found: dict[str, list[dict[str, Any]]] = {}
    for record in map(json.loads, lines):
        if record["type"] == "step.fallback":
            found.setdefault(record["data"]["step"], []).append(record["data"])
    return found


def warning_codes(run_dir: Path | str) -> list[str]:
    lines = (Path(run_dir) / "run.log.jsonl").read_text().splitlines()
    records = map(json.loads, lines)
    return [str(r["data"].get("code")) for r in records if r["type"] == "warning"]


def test_a_research_run_records_its_policy_claims_and_answer_fallbacks(
    press_lab: Lab, isolated_home: Path
) -> None:
    result = run(press_lab, isolated_home, TWO_HOPS, invalid_model())
    assert result.status == "done"
    found = fallbacks(result.run_dir)
    policy = found["research.policy"][0]
    assert policy["kind"] == "InvalidOutput" and policy["model"].startswith("scripted:model")
    assert policy["reason"] and policy["fallback"] == "rules"
    assert found["claims.read_page"][0]["fallback"] == "rules"
    # the model's answer is never replaced by a rule's: the fallback is none
    assert [e["fallback"] for e in found["answers.model_answer"]] == ["none"]
    assert result.answer == ""
    # the run's own warnings stay, beside the events
    assert {"policy_fallback", "extractor_fallback"} <= set(warning_codes(result.run_dir))


def test_a_deep_run_records_its_plan_and_escalation_fallbacks(
    lab: Lab, isolated_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(worker, "MAX_SOURCES", 0)  # the direction escalates
    result = asyncio.run(
        deep_research_async(
            DEEP_TOPIC, settings=settings_for(lab, isolated_home), max_directions=1,
            output=tmp_path, model=invalid_model(), echo=None,
        )
    )  # fmt: skip
    found = fallbacks(result.run_dir)
    (plan,) = found["deep.plan"]
    assert plan["kind"] == "InvalidOutput" and plan["fallback"] == "rules"
    assert found["deep.alternative_queries"][0]["kind"] == "InvalidOutput"
    (direction,) = result.directions
    assert len(direction["retry_queries"]) == 3  # the rules' alternatives


def test_a_web_research_run_records_its_key_points_and_themes_fallbacks(
    ferry_lab: Lab,
) -> None:
    urls = [url for url, _ in ferry_lab.pages][:2]
    result = web_research(
        FERRY_TOPIC, urls=urls, output_format="report", model=invalid_model(),
        **lab_options(ferry_lab),
    )  # fmt: skip
    assert result.status == "done", result.reason
    found = fallbacks(result.run_dir)
    assert len(found["web_research.key_points"]) == 2  # one per page read
    (themes,) = found["web_research.themes"]
    assert themes["kind"] == "InvalidOutput" and themes["step"] == "web_research.themes"
    assert any("themes by the extractive engine" in w for w in result.warnings)
