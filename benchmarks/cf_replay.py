"""Replay a Climate-FEVER lab eval's check runs with today's judge, offline, and choose the
fitted SUPPORTS bar through them.

``verify_climate_fever.py --out DIR`` leaves one run per claim (search, fetch, snapshots,
claim, verdicts). What the runs fetched does not depend on the judge, so judging their
recorded snapshots again (``VerificationEngine.verify``: the judge, the vetoes, the
mechanical checks, the status) gives the labels a new lab run with the same pages would
give, in seconds instead of minutes. The runs are read from ``DIR/runs/<run id>`` when
there (copy them there: the eval's home is a temporary folder), else from the path the
eval recorded; nothing is written to them.

For each ``--bars`` value it prints claim-level precision / recall per label and
macro-F1. With ``--write`` (tune half only) it stores in ``engines/extractive/data/judge.json``
the bar with the best macro-F1 among those whose SUPPORTS precision is at least
``--floor`` (0.70, the lead's floor for a one-source "weak").

    python benchmarks/cf_replay.py DIR [--bars 0.6,0.55,0.5,0.45,0.4] [--write]
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import json
import subprocess
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from assay.batch.check import verdict
from assay.claims.assessment import RunSources
from assay.claims.engine import VerificationEngine
from assay.engines.extractive import ExtractiveJudge
from assay.engines.extractive.fitted import fitted_judge_model
from assay.evaluation.dataset import LABELS
from assay.evaluation.grade import VERDICT_LABELS
from assay.store.runs import Run, load_info

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "src" / "assay" / "engines" / "extractive" / "data" / "judge.json"


class _Quiet:
    """An event log that drops what the replay would emit (the runs stay as recorded)."""

    def emit(self, event: object) -> None:
        return None


async def replay(run_dir: Path, judge: ExtractiveJudge) -> str:
    run = Run(run_dir, load_info(run_dir), _Quiet(), fsync=False)  # type: ignore[arg-type]
    sources = RunSources.load(run.source_ledger)
    claim = run.claim_ledger.claims()[0]
    checked = await VerificationEngine(run, judge).verify(claim, sources, sources.origins())
    return VERDICT_LABELS.get(verdict(checked), "NOT_ENOUGH_INFO")


def scores(predicted: Sequence[str], gold: Sequence[str]) -> dict[str, Any]:
    figures: dict[str, Any] = {}
    for label in LABELS:
        hits = sum(1 for p, g in zip(predicted, gold, strict=True) if p == g == label)
        n, wanted = predicted.count(label), gold.count(label)
        p, r = (hits / n if n else 0.0), (hits / wanted if wanted else 0.0)
        figures[label] = (p, r, n, 2 * p * r / (p + r) if p + r else 0.0)
    figures["macro_f1"] = sum(figures[label][3] for label in LABELS) / len(LABELS)
    return figures


def run_dirs(folder: Path) -> tuple[list[Path], list[str]]:
    data = json.loads((folder / "eval.json").read_text())
    recorded = {
        json.loads(line)["run_id"]: json.loads(line)["run_dir"]
        for line in (folder / "results.jsonl").read_text().splitlines()
        if line.strip()
    }
    dirs = []
    for row in data["rows"]:
        local = folder / "runs" / row["run_id"]
        dirs.append(local if local.is_dir() else Path(recorded[row["run_id"]]))
    return dirs, [row["gold"] for row in data["rows"]]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", type=Path, help="a verify_climate_fever.py --out folder")
    parser.add_argument("--bars", default="0.6,0.55,0.5,0.45,0.4,0.35")
    parser.add_argument("--floor", type=float, default=0.70)
    parser.add_argument("--write", action="store_true", help="store the chosen bar (tune only)")
    args = parser.parse_args()
    dirs, gold = run_dirs(args.folder)
    judge = ExtractiveJudge()
    model = judge.model
    if model is None:
        raise SystemExit("the fitted decision is off (ASSAY_JUDGE_DECISION=hand-set?)")
    chosen: tuple[float, float] | None = None
    for bar in [float(b) for b in args.bars.split(",")]:
        judge.model = dataclasses.replace(model, supports_bar=bar)
        predicted = [asyncio.run(replay(d, judge)) for d in dirs]
        figures = scores(predicted, gold)
        print(f"bar {bar:.2f} macro-F1 {figures['macro_f1']:.3f}  " + "  ".join(
            f"{label[:8]} {p:.3f} / {r:.3f} ({n})"
            for label, (p, r, n, _) in ((k, figures[k]) for k in LABELS)
        ), flush=True)  # fmt: skip
        if figures["SUPPORTS"][0] >= args.floor and (
            chosen is None or figures["macro_f1"] > chosen[1]
        ):
            chosen = (bar, figures["macro_f1"])
    if chosen is None:
        raise SystemExit(f"no bar keeps SUPPORTS precision >= {args.floor}")
    print(f"best bar at SUPPORTS precision >= {args.floor}: {chosen[0]} (macro-F1 {chosen[1]:.3f})")
    if args.write:
        data = json.loads(OUT.read_text())
        data["supports_bar"] = chosen[0]
        commit = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True
        ).stdout.strip()
        data["fitted_on"]["bar"] = (
            f"benchmarks/cf_replay.py at {commit} over the tune half's lab runs "
            f"(lines 0-199): best macro-F1 {chosen[1]:.3f} at SUPPORTS precision >= {args.floor}"
        )
        OUT.write_text(json.dumps(data) + "\n")
        print(f"wrote {OUT.relative_to(ROOT)}")
        fitted_judge_model.cache_clear()


if __name__ == "__main__":
    main()
