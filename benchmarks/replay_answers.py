"""Replay the answer step over finished runs: the same claims and snapshots, the answer again.

A change to the answer step alone (answers/) need not search and read again to be
measured: each run of an eval folder (``qa_model_hotpot.py``) keeps its claims and
snapshots, and ``answer_question`` is asked again over them, with the code on PYTHONPATH
and the model given. About 25 s a HotpotQA question and 5 s a PopQA one with the local
model, against 70 s for a whole run. It prints, per question, the answer before (the
run's) and now, and then EM, F1, the share unanswered and the answer step's tokens.

The replay is not the run: the model's replies vary a little from one call to the next
(llama.cpp serving two streams), so the code as the run had it, replayed, is the baseline
(session 10: 40 of 40 tune answers as the runs gave them, 49 of 50 PopQA held ones).

    M="--model openai:qwen2.5-coder-1.5b-instruct --base-url http://127.0.0.1:8765/v1"
    python benchmarks/qa_model_hotpot.py --set hotpot --limit 20 $M --out /tmp/hp  # "runs: …"
    python benchmarks/replay_answers.py /tmp/hp --runs /tmp/assay-model-hotpot-…/runs $M
"""

from __future__ import annotations

import argparse
import asyncio
import json
import time
from pathlib import Path
from typing import Any

from assay.answers import answer_question
from assay.claims.passages import run_pages
from assay.config import load_settings
from assay.evaluation.scoring import best_f1, exact_match
from assay.models import UsageMeter
from assay.models.registry import model_from_settings
from assay.store.claims import ClaimLedger
from assay.store.sources import SourceLedger


async def replay(eval_dir: Path, runs: Path, settings: Any) -> list[dict[str, Any]]:
    model = model_from_settings(settings)
    if model is None:
        raise SystemExit("replay_answers: give --model")
    rows: list[dict[str, Any]] = []
    for row in json.loads((eval_dir / "eval.json").read_text(encoding="utf-8"))["rows"]:
        run = runs / row["run_id"]
        claims = ClaimLedger(run, fsync=False).claims()
        pages = run_pages(SourceLedger(run, fsync=False))
        meter = UsageMeter()
        started = time.monotonic()
        answer = await answer_question(row["text"], claims, model=model, pages=pages, meter=meter)
        gold = row["gold"]
        now = {
            "id": row["id"], "type": row["type"], "before": row["answer"], "answer": answer.text,
            "reason": answer.reason, "em": exact_match(answer.text, gold),
            "f1": best_f1(answer.text, gold), "f1_before": row["f1"],
            "tokens": meter.totals.input_tokens + meter.totals.output_tokens,
            "seconds": round(time.monotonic() - started, 1),
        }  # fmt: skip
        rows.append(now)
        change = f"{now['before']!r} → {now['answer']!r}"
        print(f"{now['type'][:10]:10} {now['f1_before']:.2f} → {now['f1']:.2f}  {change}  "
              f"{now['reason'][:80]}", flush=True)  # fmt: skip
    return rows


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("eval_dir", type=Path, help="an eval folder of qa_model_hotpot.py")
    parser.add_argument("--runs", type=Path, required=True, help="the runs folder it printed")
    parser.add_argument("--model", required=True)
    parser.add_argument("--base-url", default=None)
    parser.add_argument("--out", type=Path, default=None, help="write the rows as JSON here")
    args = parser.parse_args(argv)
    home = args.runs.parent
    settings = load_settings(home=home, model=args.model, base_url=args.base_url)
    rows = asyncio.run(replay(args.eval_dir, args.runs, settings))
    if args.out is not None:
        args.out.write_text(json.dumps(rows, indent=1), encoding="utf-8")
    n = len(rows) or 1
    mean = {k: sum(float(r[k]) for r in rows) / n for k in ("em", "f1", "f1_before", "tokens")}
    unanswered = sum(not r["answer"] for r in rows) / n
    before = sum(not r["before"] for r in rows) / n
    print(f"{len(rows)} questions: EM {mean['em']:.3f}  F1 {mean['f1_before']:.3f} → "
          f"{mean['f1']:.3f}  unanswered {before:.2f} → {unanswered:.2f}  "
          f"answer-step tokens {mean['tokens']:.0f}")  # fmt: skip


if __name__ == "__main__":
    main()
