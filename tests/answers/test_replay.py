"""Answers replayed over recorded runs: a regression in reading or answering fails here,
without a model and without the lab.

``tests/data/replay/*.jsonl.gz`` holds, for each question of the benchmark runs named in
``tests/data/replay/README.md``, its text, gold answers, split and the run's recorded claims
(their relevance as recorded). Each split has a floor: the figure the answer step gives on
these claims today, less a little; raising a figure is free, lowering one fails.
"""

from __future__ import annotations

import asyncio
import gzip
import json

import pytest

from assay.answers import answer_question
from assay.evaluation.scoring import best_f1, exact_match
from assay.store.claims import ClaimRecord
from tests.paths import TESTS

REPLAY = TESTS / "data" / "replay"

FLOORS = {  # (data set, split): (EM, F1), a little under the figures the runs gave
    ("popqa", "tune"): (0.66, 0.69),
    ("popqa", "held"): (0.52, 0.55),
    ("hotpotqa", "tune"): (0.28, 0.35),
    ("hotpotqa", "held"): (0.30, 0.33),
}


def _scores(name: str, split: str) -> tuple[float, float, int]:
    with gzip.open(REPLAY / f"{name}.jsonl.gz", "rt", encoding="utf-8") as handle:
        items = [json.loads(line) for line in handle if line.strip()]
    items = [i for i in items if i["split"] == split]
    em = f1 = 0.0
    for item in items:
        claims = [ClaimRecord.model_validate(c) for c in item["claims"]]
        found = asyncio.run(answer_question(item["question"], claims))
        if found.text:
            em += exact_match(found.text, item["gold"])
            f1 += best_f1(found.text, item["gold"])
    return em / len(items), f1 / len(items), len(items)


@pytest.mark.slow
@pytest.mark.parametrize(("name", "split"), sorted(FLOORS))
def test_replayed_answers_hold_their_floor(name: str, split: str) -> None:
    em, f1, count = _scores(name, split)
    floor_em, floor_f1 = FLOORS[(name, split)]
    assert count >= 40
    assert em >= floor_em and f1 >= floor_f1, f"{name} {split}: EM {em:.3f} F1 {f1:.3f}"
