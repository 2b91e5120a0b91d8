"""The extractive judge's fitted decision: stored weights, their provenance, the fit's split."""

from __future__ import annotations

import copy
import importlib.util
import json
import sys
from collections.abc import Sequence
from importlib import resources
from pathlib import Path
from types import ModuleType

import pytest

from assay.engines.extractive import ExtractiveJudge
from assay.engines.extractive.fitted import FEATURES, fitted_judge_model, parse
from assay.engines.extractive.judge import DECISION_VARIABLE
from assay.errors import ConfigError
from tests.paths import ROOT


def stored() -> dict[str, object]:
    text = resources.files("assay.engines.extractive").joinpath("data/judge.json").read_text()
    data: dict[str, object] = json.loads(text)
    return data


class Fixed:
    """Every sentence scores ``value`` in meaning."""

    def __init__(self, value: float) -> None:
        self.value = value

    def similarity(self, text: str, others: Sequence[str]) -> list[float]:
        return [self.value] * len(others)


CLAIM = "Glaciers in the Alps lost mass quickly during summer heatwaves."
EVIDENCE = "Alpine glaciers shrank fast in the hot summers."


def test_the_setting_chooses_the_stored_model(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(DECISION_VARIABLE, raising=False)
    assert ExtractiveJudge(similarity=Fixed(0.95)).model is None  # hand-set by default
    monkeypatch.setenv(DECISION_VARIABLE, "fitted")
    judge = ExtractiveJudge(similarity=Fixed(0.95))
    assert judge.model is fitted_judge_model()
    assert judge.model == parse(stored())
    assert ExtractiveJudge(similarity=None).model is None  # the model weighs the cosine
    monkeypatch.setenv(DECISION_VARIABLE, "hand-set")
    assert ExtractiveJudge(similarity=Fixed(0.95)).model is None


def test_a_bad_setting_is_a_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(DECISION_VARIABLE, "learned")
    with pytest.raises(ConfigError, match="ASSAY_JUDGE_DECISION must be one of"):
        ExtractiveJudge(similarity=Fixed(0.95))


def test_the_stored_threshold_decides() -> None:
    data = stored()
    verdict = ExtractiveJudge(similarity=Fixed(0.95), model=parse(data)).decide(CLAIM, EVIDENCE)
    assert verdict.label == "SUPPORTS" and verdict.confident, verdict.rationale
    stricter = copy.deepcopy(data)
    stricter["supports"]["threshold"] = 0.9999  # type: ignore[index]
    verdict = ExtractiveJudge(similarity=Fixed(0.95), model=parse(stricter)).decide(CLAIM, EVIDENCE)
    assert verdict.label == "NOT_ENOUGH_INFO" and verdict.quote == ""


def test_the_data_file_names_its_split_commit_and_features() -> None:
    data = stored()
    fitted_on = data["fitted_on"]
    assert isinstance(fitted_on, dict)
    assert "tune half" in fitted_on["split"] and "0-384" in fitted_on["split"]
    assert len(fitted_on["commit"]) >= 7 and int(fitted_on["commit"], 16) >= 0
    assert fitted_on["script"] == "benchmarks/fit_judge.py"
    assert tuple(data["features"]) == FEATURES  # type: ignore[arg-type]


def test_a_refutation_still_needs_a_disagreement_code_can_see() -> None:
    judge = ExtractiveJudge(similarity=Fixed(0.95), model="fitted")
    negated = judge.decide(
        "Polar bear populations are declining.", "Polar bear populations are not declining."
    )
    assert negated.label == "REFUTES"
    topic_only = judge.decide(
        "Human activity is driving Earth towards a global extinction event.",
        "Global warming is driving polar bears toward extinction.",
    )
    assert topic_only.label != "REFUTES"


def test_a_missing_claim_number_blocks_support_however_close_the_meaning() -> None:
    verdict = ExtractiveJudge(similarity=Fixed(0.99), model="fitted").decide(
        "Global temperatures rose 1.1 degrees Celsius since 1900.",
        "Since 1900, global temperatures have risen, according to NASA.",
    )
    assert verdict.label == "NOT_ENOUGH_INFO"


def fit_script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("fit_judge", ROOT / "benchmarks" / "fit_judge.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def test_the_fit_reads_only_the_tune_half(tmp_path: Path) -> None:
    rows = [
        {"claim": f"claim {i}", "evidences": [
            {"evidence": f"sentence {i}", "evidence_label": "SUPPORTS"}]}
        for i in range(5)
    ]  # fmt: skip
    path = tmp_path / "cf.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    script = fit_script()
    assert [p.claim for p in script.pairs(path, "tune")] == ["claim 0", "claim 1", "claim 2"]
    assert [p.claim for p in script.pairs(path, "held")] == ["claim 3", "claim 4"]
    assert script.tune_size(769) == 385  # benchmarks/README.md: lines 0-384


def test_a_pair_of_sentences_is_read_with_its_cosine_too() -> None:
    """A claim whose words span a title and its first sentence is read as the pair; the
    fitted model weighs the pair's cosine (it once saw 0 there and refused the support)."""
    claim = "Halvorsen Lighthouse: history\n\nConstruction of the lighthouse ended in 1874."
    evidence = (
        "Halvorsen Lighthouse: history\n\nConstruction of the lighthouse ended in 1874. "
        "Its tower is 41 metres tall."
    )
    verdict = ExtractiveJudge(similarity=Fixed(0.95), model="fitted").decide(claim, evidence)
    assert verdict.label == "SUPPORTS" and verdict.confident, verdict.rationale
    assert "similarity 0.95" in verdict.rationale
