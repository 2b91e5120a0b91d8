"""The model path of web-research with a scripted model: key points, themes and the judge
through typed calls, quotes checked verbatim, anti-patterns fed back, bounded fallbacks."""

from __future__ import annotations

import json
import re
from typing import Any

from typer.testing import CliRunner

from assay.claims.normalize import normalize_text
from assay.cli import app
from assay.lab import Lab
from assay.models.base import Request
from assay.models.testing import ScriptedModel
from assay.protocols.web_research import web_research
from assay.store.claims import ClaimLedger
from assay.store.markers import claim_markers
from tests.protocols.web_research.test_goldens import TOPIC, ferry_lab, lab_options

__all__ = ["ferry_lab"]  # the fixture, shared with the golden tests


def _fenced(text: str) -> str:
    return text.split("<<<\n", 1)[1].rsplit("\n>>>", 1)[0]


class Script:
    """Answers by the output asked for; some answers are wrong on purpose."""

    def __init__(self) -> None:
        self.key_point_calls = 0
        self.theme_calls = 0

    def __call__(self, request: Request) -> Any:
        name = request.output.name if request.output else ""
        first = request.messages[0].content
        if name == "KeyPoints":
            return self.key_points(first)
        if name == "Themes":
            return self.themes(first)
        if name == "Answer":  # the short answer: the first claim, as it reads
            return {"answer": "A ferry crosses the strait", "claim": 1}
        return self.verdict(request)

    def key_points(self, prompt: str) -> Any:
        self.key_point_calls += 1
        if self.key_point_calls == 1 or self.key_point_calls >= 4:
            # no such sentence: fed back once for source 1; source 3 never gets it right
            return {"key_points": [{"point": "The ferry is old.", "sentence": 99}]}
        lines = _fenced(prompt).splitlines()
        chosen = [n for n, line in enumerate(lines, start=1) if "ferry" in line.lower()][:3]
        points = [
            {"point": lines[n - 1].split("] ", 1)[1].rstrip("."), "sentence": n} for n in chosen
        ]
        return {"key_points": points}

    def themes(self, prompt: str) -> Any:
        self.theme_calls += 1
        findings = re.findall(r"^(claim_\d+) \(\d+ sources\): (.*)$", prompt, re.M)
        if self.theme_calls == 1:
            summary = "Some say the ferry is busy. It runs often."
            return {"themes": [{"name": "Service", "claims": [findings[0][0]], "summary": summary}]}
        half = len(findings) // 2
        groups = (
            ("Timetable and crossing", findings[:half]),
            ("The ferry's vessel", findings[half:]),
        )
        return {
            "themes": [
                {
                    "name": name,
                    "claims": [i for i, _ in group],
                    "summary": f"{group[0][1].rstrip('.')} [{group[0][0]}].",
                }
                for name, group in groups
            ]
        }

    def verdict(self, request: Request) -> Any:
        prompt = request.messages[0].content
        claim = normalize_text(prompt.split("CLAIM: ", 1)[1].split("\n", 1)[0]).rstrip(".")
        evidence = _fenced(prompt)
        numbered = request.output is not None and "sentence" in str(request.output.json_schema)
        if numbered:  # the judge shows numbered sentences and asks for a number
            for number, line in enumerate(evidence.splitlines(), start=1):
                if claim and claim in normalize_text(line):
                    return {"label": "SUPPORTS", "sentence": number}
            return {"label": "NOT_ENOUGH_INFO", "sentence": 0}
        for sentence in re.split(r"(?<=\.)\s+", evidence):
            if claim and claim in normalize_text(sentence):
                return {"label": "SUPPORTS", "quote": sentence.strip()}
        return {"label": "NOT_ENOUGH_INFO", "quote": ""}


def test_the_model_path_feeds_problems_back_and_states_the_model(ferry_lab: Lab) -> None:
    script = Script()
    model = ScriptedModel(script, usage=(200, 40))
    urls = [url for url, _ in ferry_lab.pages][:3]
    result = web_research(
        TOPIC, urls=urls, output_format="report", model=model, **lab_options(ferry_lab)
    )
    assert result.status == "done", result.reason
    assert (result.engine, result.model) == ("model", "scripted:model")
    output = str(result.output)
    assert "Written by assay" in output and "with model scripted:model" in output

    feedback = [m.content for r in model.requests for m in r.messages[1:] if m.role == "user"]
    assert any("sentence must be from 1 to" in f for f in feedback)
    assert any("vague attribution" in f and "tied to no source" in f for f in feedback)
    # source 3 never gave a valid reply: bounded retries, then the extractive engine
    assert script.key_point_calls == 2 + 1 + 3  # source 1 retried once; source 3: 3 attempts
    assert any("by the extractive engine: the model failed" in w for w in result.warnings)
    # the short answer's step reads its claims in their passages, under their pages' titles
    asked = [r for r in model.requests if r.output is not None and r.output.name == "Answer"]
    assert asked and "\nPAGE: " in asked[0].messages[0].content

    assert "### Timetable and crossing" in output and "### The ferry's vessel" in output
    claims = ClaimLedger(result.run_dir).claims()
    assert claims and all(c.verified_by == "scripted:model" for c in claims)
    assert claims[0].text == claims[0].text.rstrip(".")  # the model's point, not the quote
    presented = dict(claim_markers(output))
    assert all(presented[c.id] == c.status for c in claims if c.id in presented)
    usage = json.loads((result.run_dir / "run.json").read_text())["usage"]
    assert usage["model_calls"] == len(model.requests) and usage["input_tokens"] > 0
    verified = CliRunner().invoke(app, ["verify", result.run_id])
    assert verified.exit_code == 0, verified.output
