"""What the question-answering benchmarks share: one `assay eval` over the lab, and its figures.

`qa_hotpot.py` and `qa_popqa.py` each name a dataset and its corpus and call `main`. The
eval serves the corpus through the lab (websites with a SearxNG-compatible search) and runs
each question as an `assay research` run through `assay batch`. Printed per question and
for all questions and each ``type``: exact match and token F1 of the answer against the gold
answer and its aliases; the share of the question's gold supporting passages among the
run's sources; the share of the URLs the report links to that the run really fetched (must
be 100%). The eval folder (``--out``: eval.json, report.html, results.jsonl) is what
qa_report.py reads.

Splits (benchmarks/README.md, "Splits"): the tune half of a file is its first
ceil(n / 2) items, the held-out half the rest; ``--offset`` at `tune_size` starts the
held-out half.
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path
from typing import Any

from assay.config import load_settings
from assay.evaluation.dataset import load_dataset
from assay.evaluation.runner import EvalRequest, run_eval

DATA = next(
    (p / "shared" / "data" for p in Path(__file__).resolve().parents if (p / "shared").is_dir()),
    Path("/work/shared/data"),
)  # /work/main and the worktrees sit at different depths


def tune_size(items: int) -> int:
    """How many items the tune half holds: the first half, the middle item included."""
    return (items + 1) // 2


def split_of(position: int, items: int) -> str:
    return "tune" if position < tune_size(items) else "held"


def fetched_share(row: dict[str, Any]) -> float:
    cited = row["cited_urls"]
    return (cited - row["fabricated_urls"]) / cited if cited else 1.0


def main(description: str, dataset: str, corpus: str, *, argv: list[str] | None = None) -> None:
    """Parse the common flags, run ``dataset`` (a file of DATA) over ``corpus``, print."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--limit", type=int, default=20)
    parser.add_argument("--offset", type=int, default=0, help="skip this many questions first")
    parser.add_argument("--sites", type=int, default=8)
    parser.add_argument("--sources", type=int, default=5)
    parser.add_argument("--concurrency", type=int, default=2)
    parser.add_argument("--model", default=None)
    parser.add_argument("--base-url", default=None)
    parser.add_argument("--budget-time", type=float, default=None)
    parser.add_argument("--data", type=Path, default=DATA, help="the folder of both files")
    parser.add_argument("--out", type=Path, default=None, help="the eval folder")
    args = parser.parse_args(argv)
    home = Path(tempfile.mkdtemp(prefix=f"assay-{Path(dataset).stem}-"))
    settings = load_settings(
        home=home, model=args.model, base_url=args.base_url, budget_time=args.budget_time
    )
    request = EvalRequest(
        dataset=args.data / dataset, out_dir=args.out or home / "eval",
        settings=settings, limit=args.limit, offset=args.offset,
        corpus=args.data / corpus, sites=args.sites,
        concurrency=args.concurrency, sources=args.sources,
    )  # fmt: skip
    print(_split_note(request))
    data = run_eval(request)
    print(f"lab: {data['corpus']}; engine: {data['engine']}")
    for number, row in enumerate(data["rows"], start=1):
        if row["status"] != "done":
            print(f"{number:>3} ERROR {row['reason']}")
            continue
        print(f"{number:>3} em {row['em']:.2f} f1 {row['f1']:.2f} gold_recall "
              f"{row['gold_recall'] or 0.0:.2f} fetched {fetched_share(row):.2f} "
              f"{row['wall_seconds']:5.1f}s {row['tokens']:>6} tok | gold {row['gold'][0]!r} "
              f"| answer {row['answer'][:60]!r}")  # fmt: skip
    summarize(data["rows"])
    print(f"eval folder: {request.out_dir}")


def _split_note(request: EvalRequest) -> str:
    """Which half the selected items come from, so a quoted figure names its split."""
    total = len(load_dataset(request.dataset).items)
    first = request.offset
    last = min(total, first + (request.limit or total)) - 1
    halves = sorted({split_of(first, total), split_of(last, total)}, reverse=True)
    return (f"items {first}-{last} of {total} (0-based; tune half 0-{tune_size(total) - 1}, "
            f"held-out {tune_size(total)}-{total - 1}): {' + '.join(halves)}")  # fmt: skip


def summarize(rows: list[dict[str, Any]]) -> None:
    """All questions, then each question type on its own."""
    groups = {"all": rows} | {
        kind: [r for r in rows if r["type"] == kind] for kind in sorted({r["type"] for r in rows})
    }
    width = max(map(len, groups))
    print()
    for name, group in groups.items():
        count = len(group)

        def mean(key: str, group: list[dict[str, Any]] = group, count: int = count) -> float:
            return sum(r[key] or 0.0 for r in group) / count

        fetched = sum(fetched_share(r) for r in group) / count
        print(f"{name:<{width}} {count:>3} questions: EM {mean('em'):.3f}  F1 {mean('f1'):.3f}  "
              f"gold passages among sources {mean('gold_recall'):.3f}  "
              f"cited URLs fetched {fetched:.3f}  "
              f"wall {mean('wall_seconds'):.1f}s  tokens {mean('tokens'):.0f}")  # fmt: skip
