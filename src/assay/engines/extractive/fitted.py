"""The fitted decision of the extractive judge: two logistic models over a reading's features.

``benchmarks/fit_judge.py`` fits them on the tune half of climate-fever-dev's labelled
claim–evidence pairs (benchmarks/README.md, "Splits") and writes ``data/judge.json`` with
the split and commit they were fitted on. One model scores SUPPORTS against everything
else; the other (optional) scores REFUTES among the readings where code sees a
disagreement (a negation, an antonym, another number or another value for the same
slot), so a refutation still stands only on a disagreement code can see. Each bar was chosen on the
tune half to keep precision high: a wrong SUPPORTS becomes a "verified" nobody should
trust.

The judge uses it only with ``ASSAY_JUDGE_DECISION=fitted``: through the lab (search,
fetch, verify) it added wrong SUPPORTS and no net right ones on both halves, though on the
pairs it nearly doubled SUPPORTS recall at the same precision (benchmarks/README.md,
"Fitted judge").
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from importlib import resources

from assay.reading.logistic import Logistic

FEATURES = (
    "coverage",
    "similarity",
    "density",
    "numbers_agree",
    "numbers_missing",
    "polarity_mixed",
    "polarity_flipped",
    "numbers_conflict",
    "slot_conflict",
)
"""What ``judge.features`` returns, in order; the data file names the same list."""


@dataclass(frozen=True)
class JudgeModel:
    """The two fitted models and where they came from."""

    supports: Logistic
    refutes: Logistic | None
    """``None``: REFUTES keeps the hand-set rule (``Thresholds.refutes``). The fitted
    REFUTES model lost precision on the held-out half (benchmarks/README.md, "Fitted
    judge"), so the data file leaves it out."""
    margin: float
    """How far below a bar a score may fall and still carry the label, marked not confident
    (the engine counts only confident verdicts)."""
    fitted_on: dict[str, str]


def parse(data: dict[str, object]) -> JudgeModel:
    """A model from the data file's JSON (``fit_judge.py`` writes it)."""
    if tuple(data["features"]) != FEATURES:  # type: ignore[arg-type]
        raise ValueError(f"judge.json was fitted on {data['features']}, not {FEATURES}")

    def logistic(part: object) -> Logistic | None:
        if part is None:
            return None
        assert isinstance(part, dict)
        weights = tuple(float(w) for w in part["weights"])
        return Logistic(weights, float(part["bias"]), float(part["threshold"]))

    fitted_on = data["fitted_on"]
    assert isinstance(fitted_on, dict)
    supports = logistic(data["supports"])
    if supports is None:
        raise ValueError("judge.json has no SUPPORTS model")
    return JudgeModel(
        supports=supports,
        refutes=logistic(data["refutes"]),
        margin=float(data["margin"]),  # type: ignore[arg-type]
        fitted_on={str(k): str(v) for k, v in fitted_on.items()},
    )


@cache
def fitted_judge_model() -> JudgeModel:
    """The weights in ``data/judge.json`` (read once)."""
    text = resources.files("assay.engines.extractive").joinpath("data/judge.json").read_text()
    return parse(json.loads(text))
