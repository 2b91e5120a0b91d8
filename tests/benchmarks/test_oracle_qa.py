"""benchmarks/oracle_qa.py: the oracle reads only the gold paragraphs, through the answer step."""

from __future__ import annotations

import asyncio
import importlib
from types import ModuleType

import pytest

from assay.evaluation.dataset import EvalItem
from assay.models.testing import ScriptedModel
from tests.paths import ROOT

GOLD = frozenset({"Alû", "Lilu (mythology)"})
ITEM = EvalItem(
    id="q", text="If Gallu is a demon Lilu is what?", answers=("spirit",), gold_titles=GOLD,
    passages=(("Demon Dice", "Demon Dice is a game."),
              ("Lilu (mythology)", "Lilu is a spirit. It is a demon."),
              ("Alû", "Alû is a demon.")),
    type="bridge",
)  # fmt: skip


@pytest.fixture
def script(monkeypatch: pytest.MonkeyPatch) -> ModuleType:
    monkeypatch.syspath_prepend(str(ROOT / "benchmarks"))
    return importlib.import_module("oracle_qa")


def test_the_oracle_reads_only_the_gold_paragraphs(script: ModuleType) -> None:
    claims, pages = script.gold_claims(ITEM)
    assert sorted(p.title for p in pages.values()) == sorted(GOLD)
    assert [c.text for c in claims] == ["Lilu is a spirit.", "It is a demon.", "Alû is a demon."]
    texts = dict(ITEM.passages)
    for claim in claims:
        (evidence,) = claim.evidence
        title = pages[evidence.source_id].title
        assert texts[title][evidence.start : evidence.end] == evidence.quote


def test_the_oracle_answers_through_the_models_checked_step(script: ModuleType) -> None:
    model = ScriptedModel(
        [{"answer": "a ghost", "claims": [1]}, {"answer": "a spirit", "claims": [1]}]
    )
    (row,) = asyncio.run(script.oracle_rows([ITEM], model, "hotpot", concurrency=2))
    # "ghost" is in no gold sentence: the answer step's check sent it back, as in a run
    assert "ghost" in model.requests[1].messages[-1].content
    assert row["answer"] == "a spirit" and row["em"] == 1.0 and row["model_calls"] == 2
    assert row["type"] == "bridge" and not row["unanswered"]
    figures = script.score([row, {**row, "type": "comparison", "em": 0.0, "f1": 0.0}])
    assert figures["all"]["em"] == 0.5 and figures["bridge"]["f1"] == 1.0
