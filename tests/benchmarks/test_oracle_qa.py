"""benchmarks/oracle_qa.py: the oracle reads only the gold paragraphs, through the answer step."""

from __future__ import annotations

import asyncio
import importlib
from types import ModuleType

import pytest

from assay.evaluation.dataset import EvalItem
from assay.models.testing import ScriptedModel
from tests.paths import ROOT

GOLD = frozenset({"Osric", "Vell (folklore)"})
ITEM = EvalItem(
    id="q", text="If Osric is a ferryman Vell is what?", answers=("boatman",), gold_titles=GOLD,
    passages=(("Ferry Dice", "Ferry Dice is a game."),
              ("Vell (folklore)", "Vell is a boatman. It is a ferryman."),
              ("Osric", "Osric is a ferryman.")),
    type="bridge",
)  # fmt: skip


@pytest.fixture
def script(monkeypatch: pytest.MonkeyPatch) -> ModuleType:
    monkeypatch.syspath_prepend(str(ROOT / "benchmarks"))
    return importlib.import_module("oracle_qa")


def test_the_oracle_reads_only_the_gold_paragraphs(script: ModuleType) -> None:
    claims, pages = script.gold_claims(ITEM)
    assert sorted(p.title for p in pages.values()) == sorted(GOLD)
    assert [c.text for c in claims] == [
        "Vell is a boatman.",
        "It is a ferryman.",
        "Osric is a ferryman.",
    ]
    texts = dict(ITEM.passages)
    for claim in claims:
        (evidence,) = claim.evidence
        title = pages[evidence.source_id].title
        assert texts[title][evidence.start : evidence.end] == evidence.quote


def test_the_oracle_answers_through_the_models_checked_step(script: ModuleType) -> None:
    model = ScriptedModel(
        [{"answer": "a sailor", "claims": [1]}, {"answer": "a boatman", "claims": [2]}]
    )
    (row,) = asyncio.run(script.oracle_rows([ITEM], model, "hotpot", concurrency=2))
    # "sailor" is in no gold sentence: the answer step's check sent it back, as in a run
    assert "sailor" in model.requests[1].messages[-1].content
    assert row["answer"] == "a boatman" and row["em"] == 1.0 and row["model_calls"] == 2
    assert row["type"] == "bridge" and not row["unanswered"]
    figures = script.score([row, {**row, "type": "comparison", "em": 0.0, "f1": 0.0}])
    assert figures["all"]["em"] == 0.5 and figures["bridge"]["f1"] == 1.0
