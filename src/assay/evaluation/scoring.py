"""Answer and label metrics: SQuAD-normalised EM and token F1 over aliases, a three-way
grade, and FEVER-style label accuracy, per-class scores and macro-F1."""

from __future__ import annotations

import re
import string
from collections import Counter
from collections.abc import Sequence
from typing import Literal

Grade = Literal["correct", "incorrect", "not_attempted"]
CORRECT_F1 = 0.5  # the three-way grade's bar: right answer, maybe with a few extra words
_PUNCTUATION = frozenset(string.punctuation)


def normalize(text: str) -> str:
    """SQuAD answer normalisation: lower case, no punctuation, articles or extra spaces."""
    text = "".join(c for c in text.lower() if c not in _PUNCTUATION)
    return " ".join(re.sub(r"\b(a|an|the)\b", " ", text).split())


def token_f1(prediction: str, gold: str) -> float:
    predicted, expected = normalize(prediction).split(), normalize(gold).split()
    common = sum((Counter(predicted) & Counter(expected)).values())
    if not common:
        return 0.0
    precision, recall = common / len(predicted), common / len(expected)
    return 2 * precision * recall / (precision + recall)


def exact_match(prediction: str, golds: Sequence[str]) -> float:
    """1.0 when the answer equals any accepted answer after normalisation."""
    return float(any(normalize(prediction) == normalize(g) for g in golds))


def best_f1(prediction: str, golds: Sequence[str]) -> float:
    return max((token_f1(prediction, g) for g in golds), default=0.0)


def grade(prediction: str, golds: Sequence[str]) -> Grade:
    """not_attempted: no answer given; correct: EM, or F1 ≥ 0.5; else incorrect."""
    if not normalize(prediction):
        return "not_attempted"
    if exact_match(prediction, golds) or best_f1(prediction, golds) >= CORRECT_F1:
        return "correct"
    return "incorrect"


def label_scores(pairs: Sequence[tuple[str, str]], labels: Sequence[str]) -> dict[str, object]:
    """Accuracy, per-class precision/recall/F1, macro-F1 (over every label) and confusion."""
    total = len(pairs) or 1
    per_class: dict[str, dict[str, float]] = {}
    for label in labels:
        hits = sum(g == label and p == label for g, p in pairs)
        gold = sum(g == label for g, _ in pairs)
        guessed = sum(p == label for _, p in pairs)
        precision = hits / guessed if guessed else 0.0
        recall = hits / gold if gold else 0.0
        f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
        per_class[label] = {"gold": gold, "predicted": guessed, "precision": precision,
                            "recall": recall, "f1": f1}  # fmt: skip
    counts = Counter(pairs)
    return {
        "accuracy": sum(g == p for g, p in pairs) / total,
        "macro_f1": sum(per_class[label]["f1"] for label in labels) / len(labels),
        "per_class": per_class,
        "confusion": {g: {p: counts[(g, p)] for p in labels} for g in labels},
    }
