"""Verify Climate-FEVER claims through search and fetch, and score the verdicts.

`assay eval` serves the evidence sentences of the selected claims, grouped by Wikipedia
article into documents, through the lab (N sites, each on its own loopback address, with a
SearxNG-compatible search) and runs each claim as a `check` run through `assay batch`: it
searches the lab, fetches the best pages through the real fetcher, records the claim and
verifies it with the configured judge. Status → label: verified/weak → SUPPORTS;
contradicted with supporting evidence → DISPUTED, without → REFUTES; needs_review →
NOT_ENOUGH_INFO. (Until the eval feature, all claims shared one run; now each has its own.)

    python benchmarks/verify_climate_fever.py --limit 50
    python benchmarks/verify_climate_fever.py --offset 385 --limit 200   # held-out half
    python benchmarks/verify_climate_fever.py --limit 20 \
        --model openai:qwen2.5-coder-1.5b-instruct --base-url http://127.0.0.1:8765/v1
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path
from typing import Any

from assay.config import load_settings
from assay.evaluation.dataset import LABELS
from assay.evaluation.runner import EvalRequest, run_eval
from assay.models import set_model_requests_allowed

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
)  # /work/main and the /work/wt/* worktrees sit at different depths


def print_scores(summary: dict[str, Any]) -> None:
    print(f"accuracy {summary['accuracy']:.3f} over {summary['items']} claims")
    print(f"{'class':<16} {'gold':>5} {'pred':>5} {'prec':>6} {'rec':>6} {'f1':>6}")
    for label in LABELS:
        c = summary["per_class"][label]
        print(f"{label:<16} {c['gold']:>5} {c['predicted']:>5} {c['precision']:>6.3f} "
              f"{c['recall']:>6.3f} {c['f1']:>6.3f}")  # fmt: skip
    print(f"macro F1 {summary['macro_f1']:.3f}")
    print("confusion (rows gold, columns predicted):")
    print(" " * 16 + "".join(f"{label[:8]:>10}" for label in LABELS))
    for gold in LABELS:
        print(f"{gold:<16}" + "".join(f"{summary['confusion'][gold][p]:>10}" for p in LABELS))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--limit", type=int, default=50, help="claims to check")
    parser.add_argument(
        "--offset", type=int, default=0, help="lines to skip first (385: the held-out half)"
    )
    parser.add_argument("--sites", type=int, default=8)
    parser.add_argument("--sources", type=int, default=4, help="pages read per claim")
    parser.add_argument("--concurrency", type=int, default=2)
    parser.add_argument("--model", default=None, help="provider:model (none: extractive)")
    parser.add_argument("--base-url", default=None)
    parser.add_argument("--out", type=Path, default=None, help="the eval folder")
    parser.add_argument("--verbose", action="store_true")
    args = parser.parse_args()
    set_model_requests_allowed(True)
    home = Path(tempfile.mkdtemp(prefix="assay-cf-"))
    request = EvalRequest(
        dataset=args.data, out_dir=args.out or home / "eval",
        settings=load_settings(home=home, model=args.model, base_url=args.base_url),
        limit=args.limit, offset=args.offset, sites=args.sites, concurrency=args.concurrency,
        sources=args.sources,
    )  # fmt: skip
    data = run_eval(request)
    print(f"judge: {data['engine']}; {data['summary']['items']} claims; {data['corpus']}")
    if args.verbose:
        for number, row in enumerate(data["rows"], start=1):
            print(f"{number:>4} {row['gold']:<16} {row['predicted']:<16} "
                  f"{row['wall_seconds']:5.1f}s {row['text'][:60]}")  # fmt: skip
    summary = data["summary"]
    print_scores(summary)
    wall = summary["item_seconds_total"]
    print(f"elapsed {summary['elapsed_seconds']:.1f}s; {wall:.1f}s summed over runs "
          f"({summary['wall_mean']:.2f}s per claim); "
          f"model calls {summary['model_calls']}; tokens {summary['tokens_total']}")  # fmt: skip
    print(f"eval folder: {request.out_dir}")


if __name__ == "__main__":
    main()
