"""Paired significance tests for two systems scored on the same items (no scipy needed).

``sign_test``: the exact two-sided binomial test on wins against losses (ties dropped).
``paired_bootstrap``: resample the items with replacement; the two-sided p-value is twice
the share of resamples whose mean difference falls on the other side of zero (capped at 1).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from math import comb

BOOTSTRAP_SAMPLES = 10_000


def sign_test(wins: int, losses: int) -> float:
    """Two-sided p-value of ``wins`` against ``losses`` under a fair coin."""
    trials = wins + losses
    if trials == 0:
        return 1.0
    extreme = min(wins, losses)
    tail: float = sum(comb(trials, k) for k in range(extreme + 1)) / 2**trials
    return min(1.0, 2 * tail)


def paired_bootstrap(
    a: Sequence[float], b: Sequence[float], *, samples: int = BOOTSTRAP_SAMPLES, seed: int = 0
) -> tuple[float, float]:
    """(mean of b − a, two-sided p-value) over paired scores."""
    if len(a) != len(b):
        raise ValueError("paired scores need the same number of items")
    if not a:
        return 0.0, 1.0
    diffs = [y - x for x, y in zip(a, b, strict=True)]
    observed = sum(diffs) / len(diffs)
    if observed == 0:
        return 0.0, 1.0
    rng = random.Random(seed)  # noqa: S311 - resampling, not secrecy
    size = len(diffs)
    other_side = 0
    for _ in range(samples):
        mean = sum(diffs[rng.randrange(size)] for _ in range(size)) / size
        other_side += mean <= 0 if observed > 0 else mean >= 0
    return observed, min(1.0, 2 * other_side / samples)
