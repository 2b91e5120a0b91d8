"""A fitted logistic model: the one shape every fitted decision in assay takes."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class Logistic:
    """``score = sigmoid(weights · features + bias)``; a label needs ``score >= threshold``."""

    weights: tuple[float, ...]
    bias: float
    threshold: float

    def score(self, values: Sequence[float]) -> float:
        z = self.bias + sum(w * v for w, v in zip(self.weights, values, strict=True))
        return 1.0 / (1.0 + math.exp(-z))
