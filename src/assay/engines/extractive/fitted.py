"""The fitted decision of the extractive judge: does a sentence entail the claim?

A multinomial logistic model (SUPPORTS / REFUTES / NOT_ENOUGH_INFO) over one claim–sentence
pair: the reading's scalar features (``SCALARS``: coverage, cosine, density, numbers agree /
missing / conflict, polarity mixed / flipped, slot conflict, a question, a claim name
missing) and the classic sentence-pair head over the two MiniLM vectors, ``u * v`` and
``|u - v|`` (``assay.reading.embed``). Word overlap cannot tell a sentence that says the
claim from one on its topic; the head lets the fit weigh which directions of meaning the
two share.

``benchmarks/fit_judge.py`` fits it with numpy on the tune half of climate-fever-dev's
labelled pairs (L2 chosen by cross-validation grouped by claim) and
``benchmarks/cf_replay.py`` chooses the SUPPORTS bar through the lab's recorded runs, as
the best tune macro-F1 whose claim-level SUPPORTS precision stays at least
``fitted_on["floor"]``; both write ``data/judge.json`` with the split and commit. Loaded
once, on first use.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

SCALARS = (
    "coverage",
    "similarity",
    "density",
    "numbers_agree",
    "numbers_missing",
    "polarity_mixed",
    "polarity_flipped",
    "numbers_conflict",
    "slot_conflict",
    "question",
    "names_missing",
)
"""What ``judge.scalars`` returns, in order; the data file names the same list."""
CLASSES = ("SUPPORTS", "REFUTES", "NOT_ENOUGH_INFO")


@dataclass(frozen=True, eq=False)
class JudgeModel:
    """The fitted weights, the bar a SUPPORTS needs, and where they came from (compared by
    identity: its fields are arrays)."""

    mean: NDArray[np.float64]
    scale: NDArray[np.float64]
    """Each input is standardised as fitted: ``(x - mean) / scale``."""
    weights: NDArray[np.float64]
    """``(inputs, 3)``, one column per class of ``CLASSES``."""
    bias: NDArray[np.float64]
    supports_bar: float
    """The probability of SUPPORTS a sentence needs (chosen through the lab)."""
    fitted_on: dict[str, str]

    def probabilities(
        self, scalars: NDArray[np.float64], claim: NDArray[np.float32], others: NDArray[np.float32]
    ) -> NDArray[np.float64]:
        """One row of class probabilities per sentence: ``scalars`` is ``(n, len(SCALARS))``,
        ``claim`` the claim's vector, ``others`` the sentences' vectors ``(n, 384)``."""
        import numpy as np

        x = np.concatenate([scalars, others * claim, np.abs(others - claim)], axis=1)
        z = ((x - self.mean) / self.scale) @ self.weights + self.bias
        z -= z.max(axis=1, keepdims=True)
        p = np.exp(z)
        result: NDArray[np.float64] = p / p.sum(axis=1, keepdims=True)
        return result


def parse(data: dict[str, object]) -> JudgeModel:
    """A model from the data file's JSON (``fit_judge.py`` writes it)."""
    import numpy as np

    if tuple(data["scalars"]) != SCALARS:  # type: ignore[arg-type]
        raise ValueError(f"judge.json was fitted on {data['scalars']}, not {SCALARS}")
    fitted_on = data["fitted_on"]
    assert isinstance(fitted_on, dict)

    def array(key: str) -> NDArray[np.float64]:
        return np.asarray(data[key], dtype=np.float64)

    weights = array("weights")
    if weights.shape != (len(data["mean"]), len(CLASSES)):  # type: ignore[arg-type]
        raise ValueError(f"judge.json: weights of shape {weights.shape}")
    return JudgeModel(
        mean=array("mean"),
        scale=array("scale"),
        weights=weights,
        bias=array("bias"),
        supports_bar=float(data["supports_bar"]),  # type: ignore[arg-type]
        fitted_on={str(k): str(v) for k, v in fitted_on.items()},
    )


@cache
def fitted_judge_model() -> JudgeModel:
    """The weights in ``data/judge.json`` (read once)."""
    text = resources.files("assay.engines.extractive").joinpath("data/judge.json").read_text()
    return parse(json.loads(text))
