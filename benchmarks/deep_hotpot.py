"""HotpotQA through `assay deep` (the library call): direction scores, escalations, answers.

The lab serves the HotpotQA-100 corpus as websites with a SearxNG-compatible search; each
question is one deep run against it. Per question: the direction scores (first and final),
how many directions escalated and how many ended as insufficient data, whether the gold
answer appears in the report's findings, the token F1 of the report's **Answer:** line
against the gold answer, and the wall time.

    python benchmarks/deep_hotpot.py --limit 10 --max-directions 3
    python benchmarks/deep_hotpot.py --limit 2 --max-directions 2 \
        --model openai:qwen2.5-coder-1.5b-instruct --base-url http://127.0.0.1:8765/v1
"""

from __future__ import annotations

import argparse
import asyncio
import json
import tempfile
import time
from pathlib import Path
from typing import Any

from assay.config import load_settings
from assay.evaluation.scoring import normalize, token_f1
from assay.lab import serve_lab
from assay.protocols.deep import deep_research_async

DATA = Path("/work/shared/data")


def answer_of(report: str) -> str:
    line = next((x for x in report.splitlines() if x.startswith("**Answer:** ")), "")
    return line.removeprefix("**Answer:** ").split(" [", 1)[0].split(" (claim_", 1)[0]


def run_one(item: dict[str, Any], args: argparse.Namespace, search_url: str) -> dict[str, Any]:
    home = Path(tempfile.mkdtemp(prefix="deep-hotpot-"))
    settings = load_settings(
        home=home, search="searxng", searxng_url=search_url, allow_hosts=["127.0.0.0/8"],
        model=args.model, base_url=args.base_url,
    )  # fmt: skip
    started = time.monotonic()
    result = asyncio.run(
        deep_research_async(
            item["question"], settings=settings, max_directions=args.max_directions,
            output=home,
        )
    )  # fmt: skip
    wall = time.monotonic() - started
    report = Path(result.report).read_text(encoding="utf-8")
    findings = report.split("## Findings", 1)[-1].split("## Research directions", 1)[0]
    answer = answer_of(report)
    return {
        "question": item["question"],
        "type": item.get("type"),
        "gold": item["answer"],
        "answer": answer,
        "f1": round(token_f1(answer, item["answer"]), 3),
        "gold_in_findings": normalize(item["answer"]) in normalize(findings),
        "scores": [d["score"] for d in result.directions],
        "first_scores": [d["first_score"] for d in result.directions if d["escalated"]],
        "escalated": sum(d["escalated"] for d in result.directions),
        "insufficient": sum(d["insufficient"] for d in result.directions),
        "directions": len(result.directions),
        "wall_s": round(wall, 1),
        "tokens": result.usage.get("input_tokens", 0) + result.usage.get("output_tokens", 0),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=int, default=10)
    parser.add_argument("--offset", type=int, default=0)
    parser.add_argument("--max-directions", type=int, default=3)
    parser.add_argument("--sites", type=int, default=8)
    parser.add_argument("--model")
    parser.add_argument("--base-url")
    parser.add_argument("--data", type=Path, default=DATA)
    args = parser.parse_args()
    questions = json.loads((args.data / "hotpotqa-100.json").read_text())
    chosen = questions[args.offset : args.offset + args.limit]
    rows = []
    with serve_lab(args.data / "hotpotqa-100-corpus.json", sites=args.sites, faults=False) as lab:
        for item in chosen:
            rows.append(run_one(item, args, lab.sites[0]))
            print(json.dumps(rows[-1], ensure_ascii=False), flush=True)
    count = len(rows) or 1
    summary = {
        "questions": len(rows),
        "engine": args.model or "extractive",
        "mean_f1": round(sum(r["f1"] for r in rows) / count, 3),
        "gold_in_findings": round(sum(r["gold_in_findings"] for r in rows) / count, 3),
        "directions": sum(r["directions"] for r in rows),
        "escalated": sum(r["escalated"] for r in rows),
        "insufficient": sum(r["insufficient"] for r in rows),
        "mean_score": round(
            sum(s for r in rows for s in r["scores"]) / max(1, sum(len(r["scores"]) for r in rows)),
            2,
        ),
        "mean_wall_s": round(sum(r["wall_s"] for r in rows) / count, 1),
    }
    print(json.dumps(summary))


if __name__ == "__main__":
    main()
