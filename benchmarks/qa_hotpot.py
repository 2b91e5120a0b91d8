"""HotpotQA through `assay eval`: answers, citations, time and tokens.

`assay eval` serves the HotpotQA-100 corpus through the lab (websites with a
SearxNG-compatible search) and runs each question as an `assay research` run through
`assay batch`. Scores: exact match and token F1 of the answer against the gold answer; the
share of the question's gold supporting passages among the run's sources; and the share of
the URLs the report links to that the run really fetched (must be 100%). Figures are printed
for all questions and per HotpotQA question type (bridge, comparison); the eval folder
(``--out``: eval.json, report.html, results.jsonl) is what qa_report.py reads.

    python benchmarks/qa_hotpot.py --limit 50 --out /tmp/hotpot-extractive
    python benchmarks/qa_hotpot.py --limit 20 --model openai:qwen2.5-coder-1.5b-instruct \
        --base-url http://127.0.0.1:8765/v1
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path
from typing import Any

from assay.config import load_settings
from assay.evaluation.runner import EvalRequest, run_eval

DATA = next(
    (p / "shared" / "data" for p in Path(__file__).resolve().parents if (p / "shared").is_dir()),
    Path("/work/shared/data"),
)  # /work/main and the /work/wt/* worktrees sit at different depths


def fetched_share(row: dict[str, Any]) -> float:
    cited = row["cited_urls"]
    return (cited - row["fabricated_urls"]) / cited if cited else 1.0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=int, default=20)
    parser.add_argument("--offset", type=int, default=0, help="skip this many questions first")
    parser.add_argument("--sites", type=int, default=8)
    parser.add_argument("--sources", type=int, default=5)
    parser.add_argument("--concurrency", type=int, default=2)
    parser.add_argument("--model", default=None)
    parser.add_argument("--base-url", default=None)
    parser.add_argument("--budget-time", type=float, default=None)
    parser.add_argument("--out", type=Path, default=None, help="the eval folder")
    args = parser.parse_args()
    home = Path(tempfile.mkdtemp(prefix="assay-hotpot-"))
    settings = load_settings(
        home=home, model=args.model, base_url=args.base_url, budget_time=args.budget_time
    )
    request = EvalRequest(
        dataset=DATA / "hotpotqa-100.json", out_dir=args.out or home / "eval",
        settings=settings, limit=args.limit, offset=args.offset,
        corpus=DATA / "hotpotqa-100-corpus.json", sites=args.sites,
        concurrency=args.concurrency, sources=args.sources,
    )  # fmt: skip
    data = run_eval(request)
    print(f"lab: {data['corpus']}; engine: {data['engine']}")
    for number, row in enumerate(data["rows"], start=1):
        if row["status"] != "done":
            print(f"{number:>3} ERROR {row['reason']}")
            continue
        print(f"{number:>3} em {row['em']:.2f} f1 {row['f1']:.2f} gold_recall "
              f"{row['gold_recall']:.2f} fetched {fetched_share(row):.2f} "
              f"{row['wall_seconds']:5.1f}s {row['tokens']:>6} tok | gold {row['gold'][0]!r} "
              f"| answer {row['answer'][:60]!r}")  # fmt: skip
    summarize(data["rows"])
    print(f"eval folder: {request.out_dir}")


def summarize(rows: list[dict[str, Any]]) -> None:
    """All questions, then each HotpotQA type on its own."""
    groups = {"all": rows} | {
        kind: [r for r in rows if r["type"] == kind] for kind in sorted({r["type"] for r in rows})
    }
    print()
    for name, group in groups.items():
        count = len(group)

        def mean(key: str, group: list[dict[str, Any]] = group, count: int = count) -> float:
            return sum(r[key] or 0.0 for r in group) / count

        fetched = sum(fetched_share(r) for r in group) / count
        print(f"{name:<11} {count:>3} questions: EM {mean('em'):.3f}  F1 {mean('f1'):.3f}  "
              f"gold passages among sources {mean('gold_recall'):.3f}  "
              f"cited URLs fetched {fetched:.3f}  "
              f"wall {mean('wall_seconds'):.1f}s  tokens {mean('tokens'):.0f}")  # fmt: skip


if __name__ == "__main__":
    main()
