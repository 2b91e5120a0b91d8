"""Fit the extractive judge's entailment model (``engines/extractive/data/judge.json``).

Climate-FEVER gives each claim five evidence sentences labelled SUPPORTS / REFUTES /
NOT_ENOUGH_INFO. Every (claim, sentence) pair of the TUNE half (lines 0-384,
benchmarks/README.md "Splits") is read as the product reads a sentence: the scalar
signals of ``judge.scalars`` (coverage, cosine, density, numbers, polarity, slot conflict,
a question, a missing claim name) and the MiniLM vectors u (claim) and v (sentence), whose
pair head is ``[u * v, |u - v|]``. A multinomial logistic (SUPPORTS / REFUTES / NEI) is
fitted with numpy (Adam, inputs standardised; L2 on the scalar weights ``L2_SCALARS``, on
the head's weights chosen from ``L2_HEAD`` by 5-fold cross-validation inside the tune half,
grouped by claim, by log-loss). The same CV is printed for the scalar inputs alone, so the
head is kept only where it earns it.

The SUPPORTS bar is not chosen here: ``benchmarks/cf_replay.py --write`` chooses it through
the lab's recorded runs (claim level); a refit keeps the stored bar. Pair-level precision /
recall per class is printed for both halves, as the product's judge labels each pair.

    python benchmarks/fit_judge.py [--data PATH]            # fit, write, report
    python benchmarks/fit_judge.py --report [--data PATH]   # report the stored model only
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from assay.claims.disagreement import stems_of
from assay.engines.extractive import ExtractiveJudge
from assay.engines.extractive.fitted import CLASSES, SCALARS, fitted_judge_model
from assay.engines.extractive.judge import _read, scalars
from assay.reading.embed import default_embedder

ROOT = Path(__file__).resolve().parents[1]
DATA = (
    next(
        (
            p / "shared" / "data"
            for p in Path(__file__).resolve().parents
            if (p / "shared").is_dir()
        ),
        Path("/work/shared/data"),
    )
    / "climate-fever-dev.jsonl"
)
OUT = ROOT / "src" / "assay" / "engines" / "extractive" / "data" / "judge.json"
TUNE_LINES = 385  # ceil(769 / 2): benchmarks/README.md, "Splits"
LABELS = CLASSES
L2_SCALARS = 0.01
L2_HEAD = (0.3, 1.0, 3.0)
FOLDS = 5
STEPS = 800


@dataclass(frozen=True)
class Pair:
    claim: str
    evidence: str
    label: str


def tune_size(lines: int) -> int:
    return (lines + 1) // 2


def pairs(path: Path, half: str) -> list[Pair]:
    """The (claim, evidence sentence, label) pairs of one half of the file; the fit reads
    ``"tune"`` only."""
    lines = [line for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    cut = tune_size(len(lines))
    chosen = lines[:cut] if half == "tune" else lines[cut:]
    found = []
    for line in chosen:
        row = json.loads(line)
        for e in row["evidences"]:
            found.append(Pair(row["claim"], e["evidence"], e["evidence_label"]))
    return found


def inputs(
    found: Sequence[Pair],
) -> tuple[NDArray[np.float64], NDArray[np.int64], NDArray[np.int64]]:
    """Each pair's model inputs (``judge.scalars``, then ``u * v`` and ``|u - v|``), its
    class index and its claim's index (for grouped folds)."""
    embedder = default_embedder()
    texts = list(dict.fromkeys([t for p in found for t in (p.claim, p.evidence)]))
    vector = dict(zip(texts, embedder.embed(texts), strict=True))
    rows, claims = [], {c: i for i, c in enumerate(dict.fromkeys(p.claim for p in found))}
    for p in found:
        u, v = vector[p.claim], vector[p.evidence]
        stems = stems_of(p.claim)
        if stems:
            reading = _read(p.claim, stems, p.evidence, 0, len(p.evidence))
            reading = dataclasses.replace(reading, similarity=float(u @ v))
            values = scalars(p.claim, reading, p.evidence)
        else:
            values = [0.0] * len(SCALARS)
        rows.append(np.r_[values, u * v, np.abs(u - v)])
    y = np.array([LABELS.index(p.label) for p in found])
    return np.array(rows), y, np.array([claims[p.claim] for p in found])


def fit(
    x: NDArray[np.float64], y: NDArray[np.int64], l2: NDArray[np.float64]
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Multinomial logistic by Adam from zero (deterministic), ``l2`` per input."""
    targets = np.eye(len(LABELS))[y]
    weights, bias = np.zeros((x.shape[1], len(LABELS))), np.zeros(len(LABELS))
    moments = [np.zeros_like(weights), np.zeros_like(bias)]
    squares = [np.zeros_like(weights), np.zeros_like(bias)]
    for step in range(1, STEPS + 1):
        error = probabilities(x, weights, bias) - targets
        grads = (x.T @ error / len(y) + l2[:, None] * weights, error.mean(axis=0))
        for i, (param, grad) in enumerate(zip((weights, bias), grads, strict=True)):
            moments[i] = 0.9 * moments[i] + 0.1 * grad
            squares[i] = 0.999 * squares[i] + 0.001 * grad * grad
            m, s = moments[i] / (1 - 0.9**step), squares[i] / (1 - 0.999**step)
            param -= 0.05 * m / (np.sqrt(s) + 1e-8)
    return weights, bias


def probabilities(
    x: NDArray[np.float64], weights: NDArray[np.float64], bias: NDArray[np.float64]
) -> NDArray[np.float64]:
    z = x @ weights + bias
    z -= z.max(axis=1, keepdims=True)
    p = np.exp(z)
    result: NDArray[np.float64] = p / p.sum(axis=1, keepdims=True)
    return result


def penalties(width: int, head: float) -> NDArray[np.float64]:
    l2 = np.full(width, head)
    l2[: len(SCALARS)] = L2_SCALARS
    return l2


def cross_validate(
    x: NDArray[np.float64], y: NDArray[np.int64], groups: NDArray[np.int64], head: float
) -> tuple[float, float]:
    """Grouped ``FOLDS``-fold log-loss and SUPPORTS AUC of one setting (claims shuffled
    with a fixed seed, so every pair of a claim is in one fold)."""
    order = np.random.default_rng(0).permutation(groups.max() + 1)
    fold = (np.argsort(order) % FOLDS)[groups]
    predicted = np.zeros((len(y), len(LABELS)))
    for k in range(FOLDS):
        train, test = fold != k, fold == k
        mean, scale = x[train].mean(axis=0), x[train].std(axis=0) + 1e-6
        w, b = fit((x[train] - mean) / scale, y[train], penalties(x.shape[1], head))
        predicted[test] = probabilities((x[test] - mean) / scale, w, b)
    loss = float(-np.log(predicted[np.arange(len(y)), y] + 1e-12).mean())
    return loss, auc(predicted[:, 0], y == 0)


def auc(score: NDArray[np.float64], positive: NDArray[np.bool_]) -> float:
    ranks = np.empty(len(score))
    ranks[np.argsort(score)] = np.arange(1, len(score) + 1)
    n = int(positive.sum())
    return float((ranks[positive].sum() - n * (n + 1) / 2) / (n * (len(score) - n)))


def precision_recall(
    predicted: Sequence[str], gold: Sequence[str], label: str
) -> tuple[float, float, int]:
    hits = sum(1 for p, g in zip(predicted, gold, strict=True) if p == g == label)
    n = sum(1 for p in predicted if p == label)
    return (hits / n if n else 0.0), hits / max(1, sum(1 for g in gold if g == label)), n


def macro_f1(
    predicted: Sequence[str], gold: Sequence[str], labels: Sequence[str] = LABELS
) -> float:
    total = 0.0
    for label in labels:
        p, r, _ = precision_recall(predicted, gold, label)
        total += 2 * p * r / (p + r) if p + r else 0.0
    return total / len(labels)


def report(path: Path) -> dict[str, object]:
    """Pair-level figures of the stored model, as the product's judge labels each pair (a
    verdict not confident counts as NOT_ENOUGH_INFO, as the engine counts it)."""
    figures: dict[str, object] = {}
    judges = {"fitted": ExtractiveJudge(), "hand-set": ExtractiveJudge(model="hand-set")}
    for half in ("tune", "held"):
        found = pairs(path, half)
        gold = [p.label for p in found]
        for name, judge in judges.items():
            verdicts = [judge.decide(p.claim, p.evidence) for p in found]
            predicted = [v.label if v.confident else "NOT_ENOUGH_INFO" for v in verdicts]
            entry: dict[str, object] = {"macro_f1": round(macro_f1(predicted, gold), 3)}
            row = f"{half:5} {name:9} macro-F1 {entry['macro_f1']:.3f}"
            for label in LABELS:
                p, r, n = precision_recall(predicted, gold, label)
                row += f"  {label[:8]} {p:.3f} / {r:.3f} ({n})"
                entry[label] = {"precision": round(p, 3), "recall": round(r, 3), "predicted": n}
            print(row, flush=True)
            figures[f"{half} {name}"] = entry
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--report", action="store_true", help="report the stored model only")
    args = parser.parse_args()
    if args.report:
        report(args.data)
        return
    x, y, groups = inputs(pairs(args.data, "tune"))
    scalar_only = cross_validate(x[:, : len(SCALARS)], y, groups, L2_SCALARS)
    print(f"CV scalars only: log-loss {scalar_only[0]:.4f}, SUPPORTS AUC {scalar_only[1]:.3f}")
    scores = {}
    for head in L2_HEAD:
        scores[head] = cross_validate(x, y, groups, head)
        print(f"CV with the head, L2 {head}: log-loss {scores[head][0]:.4f}, "
              f"SUPPORTS AUC {scores[head][1]:.3f}", flush=True)  # fmt: skip
    head = min(scores, key=lambda h: scores[h][0])
    if scores[head][0] >= scalar_only[0]:
        raise SystemExit("the head does not beat the scalar inputs on tune CV: nothing written")
    mean, scale = x.mean(axis=0), x.std(axis=0) + 1e-6
    weights, bias = fit((x - mean) / scale, y, penalties(x.shape[1], head))
    commit = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True
    ).stdout.strip()
    old = json.loads(OUT.read_text()) if OUT.exists() else {}
    data = {
        "scalars": list(SCALARS),
        "classes": list(LABELS),
        "supports_bar": old.get("supports_bar", 0.5),
        "fitted_on": {
            "split": f"tune half: climate-fever-dev lines 0-{TUNE_LINES - 1} "
            "(benchmarks/README.md, Splits)",
            "commit": commit,
            "script": "benchmarks/fit_judge.py",
            "l2_head": str(head),
            "cv_log_loss": f"{scores[head][0]:.4f} (scalars only {scalar_only[0]:.4f})",
            **{k: v for k, v in old.get("fitted_on", {}).items() if k.startswith("bar")},
        },
        "mean": [round(float(v), 6) for v in mean],
        "scale": [round(float(v), 6) for v in scale],
        "weights": [[round(float(v), 6) for v in row] for row in weights],
        "bias": [round(float(v), 6) for v in bias],
    }
    OUT.write_text(json.dumps(data) + "\n")
    print(f"wrote {OUT.relative_to(ROOT)} (head L2 {head})")
    fitted_judge_model.cache_clear()
    report(args.data)


if __name__ == "__main__":
    main()
