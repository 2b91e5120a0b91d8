"""The oracle: the model's own answer step handed each question's gold paragraphs.

No search and no reading: each question's gold paragraphs (HotpotQA: the paragraphs of
its supporting titles, from its context; PopQA: its two paragraphs) become pages, every
sentence of them a verified claim quoting itself, and ``assay.answers.answer_question``
— the same ranking, passages, prompt, checks and retries a research run's answer goes
through (answers/model_step.py) — answers over them. So its figures are the ceiling of
assay's answer step with this model: a run's EM/F1 is read as a share of them.

Per question type (bridge, comparison, single-hop) it prints EM and F1, tokens and model
calls per question, the share unanswered and flagged, and the wall time.

    M="--model openai:qwen2.5-coder-1.5b-instruct --base-url http://127.0.0.1:8765/v1"
    python benchmarks/oracle_qa.py --set hotpot --offset 50 --limit 50 --concurrency 2 $M
    python benchmarks/oracle_qa.py --set popqa --offset 187 --limit 50 --concurrency 2 $M
"""

from __future__ import annotations

import argparse
import asyncio
import json
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from assay.answers import answer_question
from assay.config import load_settings
from assay.evaluation.dataset import EvalItem, load_dataset
from assay.evaluation.scoring import best_f1, exact_match
from assay.models import Model, UsageMeter
from assay.models.registry import model_from_settings
from assay.models.step import ModelStep
from assay.reading.passages import Page
from assay.store.claims import ClaimRecord, Evidence


def gold_claims(item: EvalItem) -> tuple[list[ClaimRecord], dict[str, Page]]:
    """The item's gold paragraphs as pages, and each of their sentences as a claim."""
    pages: dict[str, Page] = {}
    claims: list[ClaimRecord] = []
    for title, text in item.passages:
        if title not in item.gold_titles or any(p.title == title for p in pages.values()):
            continue
        source = f"src_{len(pages) + 1:02d}"
        pages[source] = page = Page.of(source, title, text)
        for sentence in page.sentences:
            claims.append(ClaimRecord(
                id=f"claim_{len(claims) + 1:03d}", text=sentence.text, confidence="medium",
                sourceIds=[source], status="verified",
                evidence=[Evidence(sourceId=source, quote=sentence.text, start=sentence.start,
                                   end=sentence.end)],
            ))  # fmt: skip
    return claims, pages


async def oracle_row(item: EvalItem, model: Model, kind: str) -> dict[str, Any]:
    """One question's oracle answer, graded, with what it cost."""
    meter = UsageMeter()
    claims, pages = gold_claims(item)
    started = time.monotonic()
    answer = await answer_question(item.text, claims, model=model, meter=meter, pages=pages)
    totals = meter.totals
    return {
        "id": item.id, "type": kind, "question": item.text, "gold": item.answers[0],
        "answer": answer.text, "reason": answer.reason,
        "em": exact_match(answer.text, item.answers), "f1": best_f1(answer.text, item.answers),
        "tokens": totals.input_tokens + totals.output_tokens, "model_calls": totals.model_calls,
        "flagged": bool(answer.flags), "unanswered": not answer.found,
        "seconds": time.monotonic() - started,
    }  # fmt: skip


async def oracle_rows(
    items: Sequence[EvalItem], model: Model, dataset: str, concurrency: int = 1
) -> list[dict[str, Any]]:
    """Every item's oracle row, ``concurrency`` questions at a time, in the items' order."""
    from qa_model_hotpot import question_type  # the sibling script: the type names

    gate = asyncio.Semaphore(max(1, concurrency))

    async def one(number: int, item: EvalItem) -> dict[str, Any]:
        async with gate:
            row = await oracle_row(item, model, question_type(dataset, item.type))
        print(f"{number:>3} f1 {row['f1']:.2f} | gold {row['gold']!r} "
              f"| answer {row['answer'][:60]!r} {row['reason'][:80]}", flush=True)  # fmt: skip
        return row

    return list(await asyncio.gather(*(one(n, i) for n, i in enumerate(items, start=1))))


def score(rows: Sequence[dict[str, Any]]) -> dict[str, dict[str, float]]:
    """EM, F1, tokens, calls, unanswered and flagged shares per type and for "all"."""
    groups = {"all": list(rows)} | {
        kind: [r for r in rows if r["type"] == kind] for kind in sorted({r["type"] for r in rows})
    }
    return {
        name: {"questions": len(group)} | {
            key: sum(float(r[key]) for r in group) / (len(group) or 1)
            for key in ("em", "f1", "tokens", "model_calls", "unanswered", "flagged", "seconds")
        }
        for name, group in groups.items()
    }  # fmt: skip


def main(argv: list[str] | None = None) -> None:
    import qa_lab  # the sibling script: the data folder and the split note
    from qa_model_hotpot import SETS, add_selection_arguments

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_selection_arguments(parser)
    parser.add_argument("--model", required=True)
    parser.add_argument("--base-url", default=None)
    parser.add_argument("--data", type=Path, default=qa_lab.DATA)
    parser.add_argument("--out", type=Path, default=None, help="write the rows here (JSON)")
    parser.add_argument(
        "--timeout", type=float, default=None,
        help="seconds a model call may take (default: the answer step's own, 120 s); for a "
        "server too loaded to answer a 2K-token prompt in time — the answers, not the latency",
    )  # fmt: skip
    args = parser.parse_args(argv)
    if args.timeout is not None:
        _wait_longer(args.timeout)
    items = load_dataset(args.data / SETS[args.set][0], limit=args.limit, offset=args.offset).items
    home = Path(tempfile.mkdtemp(prefix=f"assay-oracle-{args.set}-"))
    settings = load_settings(home=home, model=args.model, base_url=args.base_url)
    model = model_from_settings(settings)
    if model is None:
        raise SystemExit("the oracle needs --model: it measures the model's answer step")
    started = time.monotonic()
    rows = asyncio.run(_run(items, model, args.set, args.concurrency))
    wall = time.monotonic() - started
    figures = score(rows)
    for name, f in figures.items():
        print(f"{name:<10} {f['questions']:>3.0f} questions: EM {f['em']:.3f}  F1 {f['f1']:.3f}  "
              f"tokens {f['tokens']:.0f}  model calls {f['model_calls']:.1f}  "
              f"unanswered {f['unanswered']:.3f}  flagged {f['flagged']:.3f}  "
              f"seconds/question {f['seconds']:.1f}")  # fmt: skip
    print(f"wall time {wall:.0f} s for {len(rows)} questions at concurrency {args.concurrency}")
    if args.out is not None:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        summary = {"set": args.set, "offset": args.offset, "limit": args.limit, "rows": rows,
                   "model": args.model, "wall_seconds": wall, "figures": figures}  # fmt: skip
        args.out.write_text(json.dumps(summary, indent=1), encoding="utf-8")


def _wait_longer(seconds: float) -> None:
    """Every model step waits ``seconds`` for a reply instead of its default; nothing
    else of the step (prompt, checks, retries) changes."""
    original = ModelStep.__init__

    def patient(self: ModelStep, *args: Any, **options: Any) -> None:
        options["timeout"] = seconds
        original(self, *args, **options)

    ModelStep.__init__ = patient  # type: ignore[method-assign]


async def _run(
    items: Sequence[EvalItem], model: Model, dataset: str, concurrency: int
) -> list[dict[str, Any]]:
    try:
        return await oracle_rows(items, model, dataset, concurrency)
    finally:
        await model.aclose()


if __name__ == "__main__":
    main()
