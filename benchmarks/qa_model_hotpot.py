"""With a model: supporting pages fetched, answers and cost per question type.

Each question runs as an `assay research` run over the lab (`assay eval`, as qa_lab.py
does) with the model. Per question type — HotpotQA's bridge and comparison, and
single-hop for PopQA — it prints: the supporting-page recall (supporting pages fetched /
supporting pages, over every question of the type; HotpotQA and PopQA name them), the
share of questions with every supporting page fetched, EM and F1, tokens and model calls
per question, the share of answers a rule reads otherwise (a flag on the answer), of
questions left unanswered, and how the hop loops ended (answered, which budget). The
ceiling these figures are a share of is oracle_qa.py's (the same answer step handed the
gold paragraphs).

    M="--model openai:qwen2.5-coder-1.5b-instruct --base-url http://127.0.0.1:8765/v1"
    python benchmarks/qa_model_hotpot.py --limit 50 $M --out /tmp/hotpot-model
    python benchmarks/qa_model_hotpot.py --set popqa --limit 50 $M --out /tmp/popqa-model
    python benchmarks/qa_model_hotpot.py --rescore /tmp/hotpot-model   # figures again, no run
"""

from __future__ import annotations

import argparse
import json
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from assay.config import load_settings
from assay.evaluation.dataset import EvalItem, load_dataset
from assay.evaluation.runner import EvalRequest, run_eval
from assay.events import AnswerGiven, GatherEnded
from assay.store.eventlog import LOG_FILE, EventLog
from assay.store.sources import SourceLedger

SETS = {
    "hotpot": ("hotpotqa-100.json", "hotpotqa-100-corpus.json"),
    "popqa": ("popqa-dev.json", "popqa-dev-corpus.json"),
}
SINGLE_HOP = "single-hop"


def question_type(dataset: str, item_type: str) -> str:
    """bridge or comparison for HotpotQA; every PopQA question is single-hop."""
    return SINGLE_HOP if dataset == "popqa" else item_type


def run_figures(run_dir: Path | None, gold_titles: frozenset[str]) -> dict[str, Any]:
    """What one run's files say: supporting pages fetched, the answer's flags, whether it
    was answered, and why its hop loop ended ("" when it had none)."""
    titles = {r.title for r in SourceLedger(run_dir).records()} if run_dir else set()
    events = EventLog(run_dir / LOG_FILE, fsync=False).events() if run_dir else []
    given = [e for e in events if isinstance(e, AnswerGiven)]
    ended = [e for e in events if isinstance(e, GatherEnded)]
    return {
        "gold_fetched": len(gold_titles & titles),
        "gold_total": len(gold_titles),
        "flagged": bool(given and given[-1].flags),
        "unanswered": not (given and given[-1].text),
        "ended": ended[-1].reason if ended else "",
    }


def ending(reason: str) -> str:
    """A hop loop's end as a category: answered, step/token/time budget, nothing left."""
    for kind in ("answered", "step budget", "token budget", "time budget", "nothing left"):
        if reason.startswith(kind):
            return kind
    return reason or "no hop loop"


def score(rows: Sequence[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """The figures of every question type, and of all questions ("all")."""
    groups = {"all": list(rows)} | {
        kind: [r for r in rows if r["type"] == kind] for kind in sorted({r["type"] for r in rows})
    }
    out: dict[str, dict[str, Any]] = {}
    for name, group in groups.items():
        count = len(group) or 1
        total = sum(r["gold_total"] for r in group)
        endings: dict[str, int] = {}
        for row in group:
            endings[ending(row["ended"])] = endings.get(ending(row["ended"]), 0) + 1
        complete = sum(r["gold_total"] > 0 and r["gold_fetched"] == r["gold_total"] for r in group)
        out[name] = {
            "questions": len(group),
            "recall": sum(r["gold_fetched"] for r in group) / total if total else None,
            "all_fetched": complete / count,
            "em": sum(r["em"] for r in group) / count,
            "f1": sum(r["f1"] for r in group) / count,
            "tokens": sum(r["tokens"] for r in group) / count,
            "model_calls": sum(r["model_calls"] for r in group) / count,
            "flagged": sum(r["flagged"] for r in group) / count,
            "unanswered": sum(r["unanswered"] for r in group) / count,
            "endings": endings,
        }
    return out


def eval_rows(
    data: dict[str, Any], items: Sequence[EvalItem], dataset: str
) -> list[dict[str, Any]]:
    """The eval's graded rows with each run's figures (``run_figures``)."""
    by_id = {item.id: item for item in items}
    rows = []
    for row in data["rows"]:
        item = by_id.get(row["id"])
        if item is None:
            continue  # a row of another selection (--rescore reads every item)
        run_dir = Path(row["report"]).parent if row.get("report") else None
        rows.append({
            "type": question_type(dataset, item.type), "em": row.get("em") or 0.0,
            "f1": row.get("f1") or 0.0, "tokens": row.get("tokens") or 0,
            "model_calls": row.get("model_calls") or 0, **run_figures(run_dir, item.gold_titles),
        })  # fmt: skip
    return rows


def show(figures: dict[str, dict[str, Any]]) -> None:
    width = max(map(len, figures))
    for name, f in figures.items():
        recall = "-" if f["recall"] is None else f"{f['recall']:.3f}"
        print(f"{name:<{width}} {f['questions']:>3} questions: supporting-page recall {recall}  "
              f"all fetched {f['all_fetched']:.3f}  EM {f['em']:.3f}  F1 {f['f1']:.3f}  "
              f"tokens {f['tokens']:.0f}  model calls {f['model_calls']:.1f}  "
              f"flagged {f['flagged']:.3f}  unanswered {f['unanswered']:.3f}  "
              f"hop loops: {json.dumps(f['endings'])}")  # fmt: skip


def add_selection_arguments(parser: argparse.ArgumentParser) -> None:
    """The questions a model benchmark runs (``--set``, ``--limit``, ``--offset``) and how
    many at once (``--concurrency``): the same flags here and in oracle_qa.py."""
    parser.add_argument("--set", choices=sorted(SETS), default="hotpot")
    parser.add_argument("--limit", type=int, default=20)
    parser.add_argument("--offset", type=int, default=0)
    parser.add_argument("--concurrency", type=int, default=1)


def main(argv: list[str] | None = None) -> None:
    import qa_lab  # the sibling script: the data folder and the split note

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_selection_arguments(parser)
    parser.add_argument("--sites", type=int, default=8)
    parser.add_argument("--sources", type=int, default=5)
    parser.add_argument("--model", default=None)
    parser.add_argument("--base-url", default=None)
    parser.add_argument("--budget-time", type=float, default=None)
    parser.add_argument("--rescore", type=Path, default=None, help="an eval folder to score")
    parser.add_argument("--data", type=Path, default=qa_lab.DATA)
    parser.add_argument("--out", type=Path, default=None, help="the eval folder")
    args = parser.parse_args(argv)
    dataset, corpus = SETS[args.set]
    selected = (None, 0) if args.rescore else (args.limit, args.offset)
    items = load_dataset(args.data / dataset, limit=selected[0], offset=selected[1]).items
    home = Path(tempfile.mkdtemp(prefix=f"assay-model-{args.set}-"))
    settings = load_settings(
        home=home, model=args.model, base_url=args.base_url, budget_time=args.budget_time
    )
    if args.rescore is not None:
        data = json.loads((args.rescore / "eval.json").read_text(encoding="utf-8"))
    else:
        request = EvalRequest(
            dataset=args.data / dataset, out_dir=args.out or home / "eval", settings=settings,
            limit=args.limit, offset=args.offset, corpus=args.data / corpus, sites=args.sites,
            concurrency=args.concurrency, sources=args.sources,
        )  # fmt: skip
        print(qa_lab._split_note(request))
        data = run_eval(request)
        print(f"lab: {data['corpus']}; engine: {data['engine']}; eval folder: {request.out_dir}")
        print(f"runs: {home / 'runs'} (replay_answers.py reads them)")
    show(score(eval_rows(data, items, args.set)))


if __name__ == "__main__":
    main()
