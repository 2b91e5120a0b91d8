"""Score the extractive judge on climate-fever's claim–evidence pairs.

    .venv/bin/python benchmarks/judge_climate_fever_pairs.py [--split tune|held|all]
        [--data PATH] [--lexical] [--sweep] [--limit CLAIMS]
        [--model openai:qwen2.5-coder-1.5b-instruct --base-url http://127.0.0.1:8765/v1]

Each line of the data file is a claim with five evidence sentences, each labelled
SUPPORTS / REFUTES / NOT_ENOUGH_INFO. The judge labels every (claim, evidence) pair; the
script prints the confusion matrix (gold rows, predicted columns), accuracy, per-class
precision/recall/F1 and macro-F1, twice: as labelled, and "confident only" (a verdict the
judge marks not confident counted as NOT_ENOUGH_INFO, as the status rules treat it). With
``--model`` the model judge (``claims/model_judge.py``, one typed call per pair, 2 at a time)
labels the pairs instead, and tokens and time per pair are printed.

Splits: ``tune`` is the first 385 lines, half the file (thresholds were tuned there),
``held`` the rest (never looked at while tuning). ``--sweep`` prints macro-F1 and the
precision of SUPPORTS and REFUTES over a grid of thresholds. The judge reads with the
bundled sentence embedder (``assay.reading``), as it does by default; ``--lexical`` judges
without it. Not part of the test suite; it asserts nothing.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import time
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

from assay.claims.judge import Verdict
from assay.claims.model_judge import ModelJudge
from assay.engines.extractive import ExtractiveJudge, Thresholds
from assay.engines.extractive.judge import Similarity
from assay.errors import ProviderError
from assay.models import ModelOptions, model_requests_allowed, resolve_model
from assay.models.usage import UsageMeter
from assay.reading.embed import default_embedder

LABELS = ("SUPPORTS", "REFUTES", "NOT_ENOUGH_INFO")
DEFAULT_DATA = Path(__file__).resolve().parents[2] / "shared/data/climate-fever-dev.jsonl"
TUNE_LINES = 385


def load_pairs(path: Path, split: str, limit: int | None = None) -> list[tuple[str, str, str]]:
    lines = path.read_text(encoding="utf-8").splitlines()
    chosen = {"tune": lines[:TUNE_LINES], "held": lines[TUNE_LINES:], "all": lines}[split]
    chosen = chosen[:limit] if limit is not None else chosen
    pairs = []
    for line in chosen:
        row = json.loads(line)
        for evidence in row["evidences"]:
            pairs.append((row["claim"], evidence["evidence"], evidence["evidence_label"]))
    return pairs


def score(gold: Sequence[str], predicted: Sequence[str]) -> dict[str, float]:
    figures: dict[str, float] = {}
    for label in LABELS:
        tp = sum(1 for g, p in zip(gold, predicted, strict=True) if g == p == label)
        n_pred = sum(1 for p in predicted if p == label)
        n_gold = sum(1 for g in gold if g == label)
        precision = tp / n_pred if n_pred else 0.0
        recall = tp / n_gold if n_gold else 0.0
        f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
        figures |= {f"P_{label}": precision, f"R_{label}": recall, f"F1_{label}": f1}
        figures[f"n_{label}"] = n_pred
    figures["macro_f1"] = sum(figures[f"F1_{label}"] for label in LABELS) / len(LABELS)
    figures["accuracy"] = sum(g == p for g, p in zip(gold, predicted, strict=True)) / len(gold)
    return figures


def report(title: str, gold: Sequence[str], predicted: Sequence[str]) -> None:
    print(f"\n{title}")
    counts = Counter(zip(gold, predicted, strict=True))
    print(f"{'gold / predicted':>18} " + " ".join(f"{p[:8]:>9}" for p in LABELS) + "    total")
    for g in LABELS:
        row = [counts[(g, p)] for p in LABELS]
        print(f"{g:>18} " + " ".join(f"{n:>9}" for n in row) + f" {sum(row):>8}")
    f = score(gold, predicted)
    print(f"accuracy {f['accuracy']:.3f}   macro-F1 {f['macro_f1']:.3f}")
    for label in LABELS:
        print(
            f"  {label:<16} precision {f[f'P_{label}']:.3f}  recall {f[f'R_{label}']:.3f}"
            f"  F1 {f[f'F1_{label}']:.3f}  (predicted {int(f[f'n_{label}'])})"
        )


def judge_all(judge: ExtractiveJudge, pairs: list[tuple[str, str, str]]) -> list[Verdict]:
    return [judge.decide(claim, evidence) for claim, evidence, _ in pairs]


async def model_judge_all(
    model_name: str, base_url: str | None, pairs: list[tuple[str, str, str]]
) -> tuple[list[Verdict], UsageMeter]:
    """The model judge on every pair, two at a time (the local server's two slots); a pair
    whose call fails counts as NOT_ENOUGH_INFO, not confident, as the engine treats it."""
    meter = UsageMeter()
    model = resolve_model(model_name, ModelOptions(base_url=base_url))
    judge = ModelJudge(model, meter=meter)
    slots = asyncio.Semaphore(2)

    async def one(claim: str, evidence: str) -> Verdict:
        async with slots:
            try:
                return await judge.judge(claim, evidence)
            except ProviderError:
                return Verdict("NOT_ENOUGH_INFO", "", confident=False)

    try:
        with model_requests_allowed(True):
            verdicts = await asyncio.gather(*(one(c, e) for c, e, _ in pairs))
    finally:
        await model.aclose()
    return list(verdicts), meter


class CachedSimilarity:
    """Remembers embedding scores, so a sweep encodes each pair once."""

    def __init__(self, inner: Similarity) -> None:
        self.inner = inner
        self.memory: dict[tuple[str, tuple[str, ...]], list[float]] = {}

    def similarity(self, text: str, others: Sequence[str]) -> list[float]:
        key = (text, tuple(others))
        if key not in self.memory:
            self.memory[key] = self.inner.similarity(text, others)
        return self.memory[key]


def sweep(pairs: list[tuple[str, str, str]], similarity: Similarity | None) -> None:
    gold = [g for _, _, g in pairs]
    print(f"{'sup':>5} {'ref':>5} | {'macroF1':>7} {'P_SUP':>6} {'n_SUP':>5} "
          f"{'P_REF':>6} {'n_REF':>5} | confident only: {'macroF1':>7} {'P_SUP':>6} {'n_SUP':>5} "
          f"{'P_REF':>6} {'n_REF':>5}")  # fmt: skip
    for supports in (0.6, 0.7, 0.8, 0.9):
        for refutes in (0.5, 0.6, 0.7):
            thresholds = Thresholds(supports=supports, refutes=refutes)
            verdicts = judge_all(ExtractiveJudge(thresholds, similarity, "hand-set"), pairs)
            row = f"{supports:>5.2f} {refutes:>5.2f}"
            for predicted in (
                [v.label for v in verdicts],
                [v.label if v.confident else "NOT_ENOUGH_INFO" for v in verdicts],
            ):
                f = score(gold, predicted)
                row += (
                    f" | {f['macro_f1']:>7.3f} {f['P_SUPPORTS']:>6.3f} "
                    f"{int(f['n_SUPPORTS']):>5} {f['P_REFUTES']:>6.3f} {int(f['n_REFUTES']):>5}"
                )
            print(row)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--split", choices=("tune", "held", "all"), default="held")
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--lexical", action="store_true", help="judge without embeddings")
    parser.add_argument("--sweep", action="store_true")
    parser.add_argument("--limit", type=int, help="claims of the split (5 pairs each)")
    parser.add_argument("--model", help="provider:model: the model judge instead")
    parser.add_argument("--base-url")
    args = parser.parse_args()
    pairs = load_pairs(args.data, args.split, args.limit)
    similarity: Similarity | None = None
    if not args.lexical:
        started = time.perf_counter()
        embedder = default_embedder()
        embedder.embed(["load the model"])
        similarity = CachedSimilarity(embedder)
        print(f"embeddings loaded in {time.perf_counter() - started:.1f} s")
    print(f"split {args.split}: {len(pairs)} pairs, gold {dict(Counter(g for *_, g in pairs))}")
    if args.sweep:
        sweep(pairs, similarity)
        return
    started = time.perf_counter()
    if args.model:
        verdicts, meter = asyncio.run(model_judge_all(args.model, args.base_url, pairs))
        totals = meter.totals
        tokens = totals.input_tokens + totals.output_tokens
        print(f"judge {args.model}: {tokens} tokens, {tokens / len(pairs):.0f} per pair")
    else:
        # the embedder itself (it caches), so the fitted decision has its vectors
        verdicts = judge_all(ExtractiveJudge(similarity=None if args.lexical else "default"), pairs)
    elapsed = time.perf_counter() - started
    print(f"judged in {elapsed:.1f} s ({1000 * elapsed / len(pairs):.2f} ms per pair)")
    gold = [g for _, _, g in pairs]
    report("as labelled", gold, [v.label for v in verdicts])
    confident = [v.label if v.confident else "NOT_ENOUGH_INFO" for v in verdicts]
    report("confident only (not confident → NOT_ENOUGH_INFO)", gold, confident)
    always = ["NOT_ENOUGH_INFO"] * len(gold)
    f = score(gold, always)
    print(f"\nbaseline, always NOT_ENOUGH_INFO: accuracy {f['accuracy']:.3f}"
          f"  macro-F1 {f['macro_f1']:.3f}")  # fmt: skip


if __name__ == "__main__":
    main()
