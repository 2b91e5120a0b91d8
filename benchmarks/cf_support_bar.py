"""What the fitted judge's SUPPORTS bar trades: claim macro-F1 against how often "supported" holds.

The extractive judge says SUPPORTS only above a bar (``engines/extractive/data/judge.json``,
chosen by ``fit_judge.py`` so that pair-level precision stays at the hand-set judge's). This
script reads every (claim, evidence sentence) pair of both Climate-FEVER halves with the
stored model and, for each bar given, prints the pair-level SUPPORTS precision / recall and
the claim-level labels the same verdicts would give when a run reads exactly the claim's
gold evidence sentences: SUPPORTS and REFUTES both → DISPUTED, either alone → that label,
neither → NOT_ENOUGH_INFO (``batch.check.verdict`` read over the sentences, not the pages a
run fetches, so the end-to-end figure differs; it has been within a few points of it).

It stores nothing: where the bar should sit is a choice between how often "supported" is
right and how many true supports are found, and the figures are the ground for it.

    python benchmarks/cf_support_bar.py [--bars 0.51 0.45 0.4 0.35 0.3] [--data PATH]
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from fit_judge import (
    DATA,
    decide,
    macro_f1,
    pairs,
    precision_recall,
    read_half,
    tune_size,
    with_bar,
)

from assay.engines.extractive.fitted import fitted_judge_model
from assay.evaluation.dataset import LABELS
from assay.reading.embed import default_embedder


def claim_label(verdicts: set[str]) -> str:
    if {"SUPPORTS", "REFUTES"} <= verdicts:
        return "DISPUTED"
    for label in ("SUPPORTS", "REFUTES"):
        if label in verdicts:
            return label
    return "NOT_ENOUGH_INFO"


def claims_of(path: Path, half: str) -> list[dict[str, object]]:
    lines = [line for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    cut = tune_size(len(lines))
    return [json.loads(line) for line in (lines[:cut] if half == "tune" else lines[cut:])]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--bars", type=float, nargs="+", default=[0.51, 0.45, 0.4, 0.35, 0.3])
    args = parser.parse_args()
    embedder, model = default_embedder(), fitted_judge_model()
    print(f"stored SUPPORTS bar {model.supports.threshold if model.supports else None}")
    print(f"{'half':5} {'bar':>5} {'pair P':>7} {'pair R':>7} {'claim F1':>9} "
          f"{'supported P':>12} {'R':>6} {'n':>4}")  # fmt: skip
    for half in ("tune", "held"):
        rows = claims_of(args.data, half)
        owner = [i for i, row in enumerate(rows) for _ in row["evidences"]]  # type: ignore[attr-defined]
        read = read_half(embedder, pairs(args.data, half))
        gold_pairs = [p.label for p in read.pairs]
        gold_claims = [str(row["claim_label"]) for row in rows]
        for bar in args.bars:
            verdicts = decide(read, with_bar(model, "supports", bar))
            per_claim: list[set[str]] = [set() for _ in rows]
            for i, verdict in zip(owner, verdicts, strict=True):
                per_claim[i].add(verdict)
            predicted = [claim_label(v) for v in per_claim]
            pair_p, pair_r, _ = precision_recall(verdicts, gold_pairs, "SUPPORTS")
            sup_p, sup_r, n = precision_recall(predicted, gold_claims, "SUPPORTS")
            claim_f1 = macro_f1(predicted, gold_claims, LABELS)
            print(f"{half:5} {bar:5.2f} {pair_p:7.3f} {pair_r:7.3f} "
                  f"{claim_f1:9.3f} {sup_p:12.3f} {sup_r:6.3f} {n:4d}")  # fmt: skip


if __name__ == "__main__":
    main()
