"""search-synth Phase 1 narratives as a person would use them (issue 25): 3 to 5
paragraphs that answer the topic, grouped by what the sentences say (two sources' same
fact side by side), not one paragraph of lead sentences nor one paragraph per page."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from assay.lab import Lab, serve_lab
from assay.models.base import Request
from assay.models.testing import ScriptedModel
from assay.protocols.synth import synth_async
from assay.protocols.synth.narrative import Written, paragraphs
from tests.synth_support import DOCS, TOPIC, roster, settings_for


@pytest.fixture(scope="module")
def tarn() -> Iterator[Lab]:
    with serve_lab(DOCS, sites=3, faults=False, first_address="127.0.0.211") as running:
        yield running


def _responses(home: Path, lab: Lab, **kwargs: Any) -> dict[str, list[str]]:
    out = home / "out" / "synth.md"
    result = asyncio.run(
        synth_async(TOPIC, roster=roster(lab), output=out, settings=settings_for(home), **kwargs)
    )
    assert result.signal == "[DONE]", result.reason
    text = Path(result.output).read_text()
    found = {}
    for name in ("Codex", "Peer"):
        body = text.split(f"### {name} Response", 1)[1].split(f"#### {name} Search Terms", 1)[0]
        found[name] = [p.strip() for p in body.strip().split("\n\n") if p.strip()]
    return found


def _writer(request: Request) -> object:
    """A scripted LLM searcher: its own queries, then prose restating six statements."""
    prompt = request.messages[-1].content
    if "EVIDENCE:" in prompt:
        return {"label": "NOT_ENOUGH_INFO", "sentence": 0}
    if prompt.startswith("TOPIC:"):
        return {"queries": ["Tarn Valley tidal plant homes", "Tarn Valley plant opened"]}
    if prompt.startswith("CLAIMS:"):
        return {"answer": "2016", "claim": 1}
    numbered = re.findall(r"^\[(\d+)\] (.*)$", prompt, re.M)
    if "STATEMENTS:" in prompt:
        return {"sentences": [{"text": t, "statements": [int(n)]} for n, t in numbered[:6]]}
    return {"paragraphs": [[int(n) for n, _ in numbered[:2]]]}


@pytest.mark.parametrize("with_model", [False, True], ids=["extractive", "scripted-model"])
def test_each_narrative_is_three_to_five_paragraphs_that_answer_the_topic(
    tarn: Lab, isolated_home: Path, with_model: bool
) -> None:
    models = {"Codex": ScriptedModel(_writer)} if with_model else {}
    for name, shown in _responses(isolated_home, tarn, models=models).items():
        assert 3 <= len(shown) <= 5, (name, shown)
        assert all("Tarn Valley" in p for p in shown), shown  # each is about the topic
        assert "opened in 2016" in shown[0], shown  # the answer leads
        opened = [p for p in shown if "opened in 2016" in p]
        assert len(opened) == 1, shown  # one theme, however many pages say it


def _written(*texts: str) -> list[Written]:
    return [Written(text, [n]) for n, text in enumerate(texts, start=1)]


def test_more_than_five_themes_merge_and_one_theme_splits() -> None:
    many = _written(
        "The Kessler starter is said to have been kept alive since 1790.",
        "The dough ferments for 18 hours at a cool room temperature.",
        "Traditional loaves contain caraway seeds and a little dark malt.",
        "The Kessler bakers' guild registered the bread's name in 2004.",
        "A standard loaf weighs one kilogram and keeps for about a week.",
        "The bread is baked in wood-fired ovens at around 250 degrees Celsius.",
        "Kessler sourdough is a rye bread from the town of Kessler.",
    )
    titles = ["Kessler sourdough"] * len(many)
    shaped = paragraphs("What is Kessler sourdough?", many, titles)
    assert len(shaped) == 5 and sum(map(len, shaped)) == len(many)
    assert shaped[0][0].text.startswith("Kessler sourdough is a rye bread")  # the answer first
    same = _written(
        "The Halvorsen Lighthouse tower is 41 metres tall.",
        "The Halvorsen Lighthouse tower is 41 metres tall, built of granite.",
        "The Halvorsen Lighthouse tower is 41 metres tall and white.",
    )
    assert len(paragraphs("How tall is the Halvorsen Lighthouse?", same, ["x"] * 3)) == 3
