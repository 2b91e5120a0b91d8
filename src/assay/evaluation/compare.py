"""Two evals of one dataset side by side: figures, per-item wins and losses, significance.

Items are paired by id; an item's score is its token F1 (questions) or 1/0 for the right
label (claims). B against A: a win is an item B scores higher. The paired bootstrap tests
the mean difference, the sign test the wins against the losses.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from assay.errors import BadInputError
from assay.evaluation.runner import EVAL_FILE
from assay.evaluation.stats import paired_bootstrap, sign_test

QUESTION_FIGURES = ("em", "f1", "correct", "gold_recall", "citation_precision",
                    "effective_citations_mean", "fabricated_urls", "tokens_mean", "model_calls",
                    "wall_mean")  # fmt: skip
CLAIM_FIGURES = ("accuracy", "macro_f1", "citation_precision", "effective_citations_mean",
                 "fabricated_urls", "tokens_mean", "model_calls", "wall_mean")  # fmt: skip


def load_eval(path: Path) -> dict[str, Any]:
    """An eval.json, given as the file or the folder holding it."""
    file = path / EVAL_FILE if path.is_dir() else path
    if not file.is_file():
        raise BadInputError(f"no eval.json at {path}")
    data: dict[str, Any] = json.loads(file.read_text(encoding="utf-8"))
    return data


def compare(a: dict[str, Any], b: dict[str, Any]) -> dict[str, Any]:
    if a["kind"] != b["kind"]:
        raise BadInputError(f"cannot compare an eval of {a['kind']} with one of {b['kind']}")
    scores_a = {r["id"]: float(r["score"]) for r in a["rows"]}
    scores_b = {r["id"]: float(r["score"]) for r in b["rows"]}
    common = [i for i in scores_a if i in scores_b]
    if not common:
        raise BadInputError("the two evals share no item ids")
    xs, ys = [scores_a[i] for i in common], [scores_b[i] for i in common]
    wins = [i for i in common if scores_b[i] > scores_a[i]]
    losses = [i for i in common if scores_b[i] < scores_a[i]]
    difference, p_bootstrap = paired_bootstrap(xs, ys)
    names = CLAIM_FIGURES if a["kind"] == "claims" else QUESTION_FIGURES
    return {
        "kind": a["kind"],
        "items": len(common),
        "figures": {n: (a["summary"].get(n), b["summary"].get(n)) for n in names},
        "wins": wins,
        "losses": losses,
        "ties": len(common) - len(wins) - len(losses),
        "mean_difference": difference,
        "p_bootstrap": p_bootstrap,
        "p_sign": sign_test(len(wins), len(losses)),
    }
