"""Fit the extractive judge's SUPPORTS / REFUTES decision (``engines/extractive/data/judge.json``).

Climate-FEVER gives each claim five evidence sentences labelled SUPPORTS / REFUTES /
NOT_ENOUGH_INFO. Every (claim, sentence) pair of the TUNE half (lines 0-384,
benchmarks/README.md "Splits") is read by the product's judge (``ExtractiveJudge.read``,
with the bundled embedder) and turned into ``judge.features``: coverage, embedding cosine,
density, numbers agreeing / missing / conflicting, polarity mixed / flipped, a slot
conflict. Two logistic models are fitted by plain gradient descent (numpy, deterministic,
small L2): SUPPORTS against the rest over all pairs, and REFUTES against the rest over the
pairs where code sees a disagreement (``judge.visibly_refuting``), since a refutation
stands only on one. Each bar is the lowest score whose confident verdicts keep the
class's precision on the tune half at least the hand-set judge's there (and at least
``PRECISION_FLOOR``): recall is bought only where precision holds. The REFUTES model is
fitted and reported but stored only with ``--with-refutes``: on the held-out half it
refuted less precisely than the hand-set rule, which therefore still decides REFUTES.

The script prints pair-level precision / recall per class on both halves, the fitted
judge beside the hand-set one, as the engine counts them (a verdict not confident counts
as NOT_ENOUGH_INFO).

    python benchmarks/fit_judge.py [--data PATH] [--with-refutes]   # fit, write, report
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

from assay.claims.judge import Verdict
from assay.engines.extractive import ExtractiveJudge
from assay.engines.extractive.fitted import FEATURES, JudgeModel, Logistic, fitted_judge_model
from assay.engines.extractive.judge import Reading, Similarity, features, visibly_refuting
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
LABELS = ("SUPPORTS", "REFUTES", "NOT_ENOUGH_INFO")
PRECISION_FLOOR = 0.7
MARGIN = 0.05
STEPS = 20000
L2 = 1e-3


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


@dataclass(frozen=True)
class Half:
    pairs: list[Pair]
    readings: list[Reading | None]
    x: NDArray[np.float64]
    refuting: NDArray[np.bool_]
    rules: list[str]
    """The hand-set judge's labels, as the engine counts them (confident only)."""

    def gold(self, label: str) -> NDArray[np.float64]:
        return np.array([float(p.label == label) for p in self.pairs])


def read_half(similarity: Similarity, found: list[Pair]) -> Half:
    """Each pair read as the fitted product reads it (a sentence pair's cosine included:
    the reading depends on there being a model, not on its weights), and labelled by the
    hand-set judge."""
    reader, judge = (
        ExtractiveJudge(similarity=similarity, model="fitted"),
        ExtractiveJudge(similarity=similarity, model=None),
    )
    readings = [reader.read(p.claim, p.evidence) for p in found]
    zero = [0.0] * len(FEATURES)
    x = np.array([features(r) if r else zero for r in readings])
    refuting = np.array([bool(r and visibly_refuting(r)) for r in readings])
    rules = [counted(judge.decide(p.claim, p.evidence)) for p in found]
    return Half(found, readings, x, refuting, rules)


def counted(verdict: Verdict) -> str:
    return verdict.label if verdict.confident else "NOT_ENOUGH_INFO"


def fit(x: NDArray[np.float64], y: NDArray[np.float64]) -> NDArray[np.float64]:
    """Logistic regression by full-batch gradient descent from zero: deterministic."""
    design = np.c_[x, np.ones(len(x))]
    beta = np.zeros(design.shape[1])
    for _ in range(STEPS):
        p = 1 / (1 + np.exp(-design @ beta))
        gradient = design.T @ (p - y) / len(y) + L2 * np.r_[beta[:-1], 0.0]
        beta -= 2.0 * gradient
    return beta


def decide(half: Half, model: JudgeModel) -> list[str]:
    """The product's verdicts with ``model`` (``ExtractiveJudge.verdict``), as the engine
    counts them."""
    judge = ExtractiveJudge(similarity=None, model=model)
    return [
        counted(judge.verdict(r, p.evidence)) if r else "NOT_ENOUGH_INFO"
        for p, r in zip(half.pairs, half.readings, strict=True)
    ]


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


def with_bar(model: JudgeModel, label: str, bar: float) -> JudgeModel:
    part = dataclasses.replace(getattr(model, label), threshold=bar)
    return dataclasses.replace(model, **{label: part})


def choose_bar(half: Half, model: JudgeModel, label: str, target: float) -> tuple[float, float]:
    """The bar giving the most recall of ``label`` on ``half`` at precision >= ``target``."""
    gold = [p.label for p in half.pairs]
    name = label.lower()
    best = (1.0, -1.0)
    for bar in np.arange(0.995, 0.04, -0.005):
        predicted = decide(half, with_bar(model, name, round(float(bar), 3)))
        precision, recall, n = precision_recall(predicted, gold, label)
        if n >= 5 and precision >= target and recall > best[1]:
            best = (round(float(bar), 3), recall)
    return best


def report(halves: dict[str, Half], models: dict[str, JudgeModel]) -> dict[str, object]:
    figures: dict[str, object] = {}
    print(f"{'half':5} {'judge':24} {'macroF1':>7}  "
          + "  ".join(f"{label[:8]:>8} P / R (n)" for label in LABELS))  # fmt: skip
    for name, half in halves.items():
        gold = [p.label for p in half.pairs]
        judged = [("hand-set", half.rules)] + [(k, decide(half, m)) for k, m in models.items()]
        for judge, predicted in judged:
            row = f"{name:5} {judge:24} {macro_f1(predicted, gold):7.3f}  "
            entry: dict[str, object] = {"macro_f1": round(macro_f1(predicted, gold), 3)}
            for label in LABELS:
                p, r, n = precision_recall(predicted, gold, label)
                row += f"  {p:.3f} / {r:.3f} ({n:4d})"
                entry[label] = {"precision": round(p, 3), "recall": round(r, 3), "predicted": n}
            print(row)
            figures[f"{name} {judge}"] = entry
    return figures


def as_json(model: JudgeModel, figures: dict[str, object]) -> str:
    def part(p: Logistic | None) -> dict[str, object] | None:
        if p is None:
            return None
        return {"weights": [round(w, 4) for w in p.weights], "bias": round(p.bias, 4),
                "threshold": p.threshold}  # fmt: skip

    data = {
        "features": list(FEATURES),
        "supports": part(model.supports),
        "refutes": part(model.refutes),
        "margin": model.margin,
        "fitted_on": model.fitted_on,
        "figures": figures,
    }
    return json.dumps(data, indent=2) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--report", action="store_true", help="report the stored model only")
    parser.add_argument(
        "--with-refutes", action="store_true",
        help="store the REFUTES model too (by default REFUTES keeps the hand-set rule)",
    )  # fmt: skip
    args = parser.parse_args()
    embedder = default_embedder()
    halves = {half: read_half(embedder, pairs(args.data, half)) for half in ("tune", "held")}
    if args.report:
        report(halves, {"stored": fitted_judge_model()})
        return
    tune = halves["tune"]
    usable = np.array([r is not None for r in tune.readings])
    supports = fit(tune.x[usable], tune.gold("SUPPORTS")[usable])
    among = usable & tune.refuting
    refutes = fit(tune.x[among], tune.gold("REFUTES")[among])
    commit = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True
    ).stdout.strip()
    model = JudgeModel(
        supports=Logistic(tuple(float(w) for w in supports[:-1]), float(supports[-1]), 1.0),
        refutes=Logistic(tuple(float(w) for w in refutes[:-1]), float(refutes[-1]), 1.0),
        margin=MARGIN,
        fitted_on={
            "split": f"tune half: climate-fever-dev lines 0-{TUNE_LINES - 1} "
            "(benchmarks/README.md, Splits)",
            "commit": commit,
            "script": "benchmarks/fit_judge.py",
        },
    )
    gold = [p.label for p in tune.pairs]
    for label in ("SUPPORTS", "REFUTES"):
        target = max(precision_recall(tune.rules, gold, label)[0], PRECISION_FLOOR)
        bar, recall = choose_bar(tune, model, label, target)
        print(f"{label}: bar {bar} (tune precision >= {target:.3f}, recall {recall:.3f})")
        model = with_bar(model, label.lower(), bar)
    print(f"supports weights {dict(zip(FEATURES, np.round(supports[:-1], 3), strict=True))}")
    print(f"refutes weights {dict(zip(FEATURES, np.round(refutes[:-1], 3), strict=True))}")
    stored = model if args.with_refutes else dataclasses.replace(model, refutes=None)
    models = {"fitted SUPPORTS": dataclasses.replace(model, refutes=None),
              "fitted SUPPORTS+REFUTES": model}  # fmt: skip
    figures = report(halves, models)
    OUT.write_text(as_json(stored, figures))
    print(f"wrote {OUT.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
