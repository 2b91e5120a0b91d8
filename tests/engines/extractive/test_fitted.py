"""The extractive judge's fitted decision: stored weights, their provenance, the fit's split,
and what code still vetoes whatever the model scores."""

from __future__ import annotations

import importlib.util
import json
import sys
from collections.abc import Sequence
from importlib import resources
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest
from numpy.typing import NDArray

from assay.engines.extractive import ExtractiveJudge
from assay.engines.extractive.fitted import CLASSES, SCALARS, JudgeModel, fitted_judge_model, parse
from assay.engines.extractive.judge import DECISION_VARIABLE
from assay.errors import ConfigError
from assay.reading.embed import DIMENSIONS, default_embedder
from tests.paths import ROOT


def stored() -> dict[str, object]:
    text = resources.files("assay.engines.extractive").joinpath("data/judge.json").read_text()
    data: dict[str, object] = json.loads(text)
    return data


class Aligned:
    """Vectors in which a sentence holding ``keyword`` points where the claim does, and
    every other sentence elsewhere (an embedder whose meaning the test sets)."""

    def __init__(self, keyword: str) -> None:
        self.keyword = keyword

    def _vector(self, text: str, first: bool) -> NDArray[np.float32]:
        vector = np.zeros(DIMENSIONS, dtype=np.float32)
        vector[0 if first or self.keyword in text else 1] = 1.0
        return vector

    def embed(self, texts: Sequence[str]) -> NDArray[np.float32]:
        return np.stack([self._vector(t, i == 0) for i, t in enumerate(texts)])

    def similarity(self, text: str, others: Sequence[str]) -> list[float]:
        vectors = self.embed([text, *others])
        return [float(v @ vectors[0]) for v in vectors[1:]]


def by_cosine(bar: float) -> JudgeModel:
    """A model whose SUPPORTS logit is the cosine input alone (standardised as is)."""
    width = len(SCALARS) + 2 * DIMENSIONS
    weights = np.zeros((width, len(CLASSES)))
    weights[SCALARS.index("similarity"), 0] = 8.0
    return JudgeModel(
        mean=np.zeros(width), scale=np.ones(width), weights=weights,
        bias=np.array([-4.0, 0.0, 0.0]), supports_bar=bar, fitted_on={},
    )  # fmt: skip


CLAIM = "Polar bears are threatened by the loss of sea ice."
EVIDENCE = (
    "Polar bears hunt seals on the sea ice. Shrinking sea ice endangers the polar bears' "
    "hunting grounds."
)


def test_the_most_probable_sentence_is_the_quote_when_it_clears_the_bar() -> None:
    judge = ExtractiveJudge(similarity=Aligned("endangers"), model=by_cosine(0.5))
    verdict = judge.decide(CLAIM, EVIDENCE)
    assert verdict.label == "SUPPORTS" and verdict.confident, verdict.rationale
    assert verdict.quote == "Shrinking sea ice endangers the polar bears' hunting grounds."
    assert EVIDENCE.count(verdict.quote) == 1
    strict = ExtractiveJudge(similarity=Aligned("endangers"), model=by_cosine(0.99))
    assert strict.decide(CLAIM, EVIDENCE).label == "NOT_ENOUGH_INFO"


def test_code_vetoes_whatever_the_model_scores() -> None:
    judge = ExtractiveJudge(similarity=Aligned("ice"), model=by_cosine(0.5))
    negated = judge.decide(
        "Polar bear populations are declining.", "Polar bear populations are not declining."
    )
    assert negated.label != "SUPPORTS"
    missing_number = judge.decide(
        "Arctic sea ice shrank 13 percent per decade.", "Arctic sea ice shrank every decade."
    )
    assert missing_number.label == "NOT_ENOUGH_INFO"
    asks = judge.decide("Sea ice is shrinking.", "Is sea ice shrinking?")
    assert asks.label == "NOT_ENOUGH_INFO"
    off_topic = judge.decide(CLAIM, "The ice was thick that winter.")  # 1 of 6 claim words
    assert off_topic.label == "NOT_ENOUGH_INFO"


def test_a_heading_never_supports_however_close_its_meaning() -> None:
    """A heading names a section ("Sea ice: what shrinks and what does not"); it states
    nothing, so it is never a quote for a SUPPORTS."""
    judge = ExtractiveJudge(similarity=Aligned("shrinks"), model=by_cosine(0.5))
    evidence = "## Arctic sea ice: what shrinks and what does not\n\nPolar bears hunt seals."
    verdict = judge.decide("Arctic sea ice shrinks.", evidence)
    assert verdict.label == "NOT_ENOUGH_INFO", verdict.rationale
    stated = judge.decide("Arctic sea ice shrinks.", "Arctic sea ice shrinks every summer.")
    assert stated.label == "SUPPORTS"


def test_the_setting_chooses_the_stored_model(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(DECISION_VARIABLE, raising=False)
    judge = ExtractiveJudge()
    assert judge.model is fitted_judge_model() and judge.whole_source  # fitted by default
    again = parse(stored())
    assert np.array_equal(judge.model.weights, again.weights)
    assert judge.model.supports_bar == again.supports_bar
    assert ExtractiveJudge(similarity=None).model is None  # the model needs vectors
    monkeypatch.setenv(DECISION_VARIABLE, "hand-set")
    assert ExtractiveJudge().model is None and not ExtractiveJudge().whole_source


def test_a_bad_setting_is_a_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(DECISION_VARIABLE, "learned")
    with pytest.raises(ConfigError, match="ASSAY_JUDGE_DECISION must be one of"):
        ExtractiveJudge(similarity=None)


def test_the_data_file_names_its_split_commit_bar_and_inputs() -> None:
    data = stored()
    fitted_on = data["fitted_on"]
    assert isinstance(fitted_on, dict)
    assert "tune half" in fitted_on["split"] and "0-384" in fitted_on["split"]
    assert len(fitted_on["commit"]) >= 7 and int(fitted_on["commit"], 16) >= 0
    assert fitted_on["script"] == "benchmarks/fit_judge.py"
    assert "benchmarks/cf_replay.py" in fitted_on["bar"] and "tune" in fitted_on["bar"]
    assert tuple(data["scalars"]) == SCALARS  # type: ignore[arg-type]
    model = fitted_judge_model()
    assert model.weights.shape == (len(SCALARS) + 2 * DIMENSIONS, len(CLASSES))
    assert 0.0 < model.supports_bar < 1.0


def test_a_refutation_still_needs_a_disagreement_code_can_see() -> None:
    judge = ExtractiveJudge()
    negated = judge.decide(
        "Polar bear populations are declining.", "Polar bear populations are not declining."
    )
    assert negated.label == "REFUTES"
    topic_only = judge.decide(
        "Human activity is driving the oceans towards a collapse of their reefs.",
        "Warmer seas are driving the Tarn reef's corals toward collapse.",
    )
    assert topic_only.label != "REFUTES"


def test_the_stored_model_supports_a_sentence_that_states_the_claim() -> None:
    verdict = ExtractiveJudge().decide(
        "Arctic sea ice extent is shrinking.",
        "Polar bears hunt seals. Arctic sea ice extent has been shrinking for decades.",
    )
    assert verdict.label == "SUPPORTS", verdict.rationale
    assert verdict.quote == "Arctic sea ice extent has been shrinking for decades."
    assert default_embedder() is ExtractiveJudge()._similarity


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
