"""The answer step's weights are fitted data, not constants in code."""

from __future__ import annotations

import json
import re
from importlib import resources
from pathlib import Path

from assay.answers import ranking

ANSWERS = Path(ranking.__file__).parent


def test_the_answer_weights_name_the_split_and_commit_they_were_fitted_on() -> None:
    data = json.loads(resources.files("assay.answers").joinpath("data/weights.json").read_text())
    assert set(data["weights"]) == {"hop_discount", "relevance_share", "distance_scale"}
    fitted_on = data["fitted_on"]
    assert "tune halves" in fitted_on["split"]
    assert len(fitted_on["commit"]) >= 7 and int(fitted_on["commit"], 16) >= 0
    assert fitted_on["script"] == "benchmarks/fit_answers.py"
    assert ranking.fitted("hop_discount") == data["weights"]["hop_discount"]


def test_no_extractive_rule_weighs_by_a_hand_set_number() -> None:
    # a fraction in a rule's code (`* 0.9`, `bonus = 1.2`, `>= 0.5`) is a weight or bar set by
    # hand: the rules' weights come from data/weights.json. (model_step.py checks a model's
    # reply, which the extractive benchmarks cannot fit; it is not a rule of these.)
    fraction = re.compile(r"(?<![\w.])(?!0\.0\b|1\.0\b)\d+\.\d+")
    offenders = [
        f"{path.name}: {line.strip()}"
        for path in sorted(ANSWERS.glob("*.py"))
        if path.name != "model_step.py"
        for line in path.read_text().splitlines()
        if fraction.search(line.split("#")[0])
    ]
    assert offenders == []
