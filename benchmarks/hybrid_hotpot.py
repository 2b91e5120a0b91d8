"""The local index's hybrid search (BM25 + vectors) against BM25 alone, on HotpotQA.

The 994 paragraphs of hotpotqa-100-corpus.json go into one in-memory ``LocalIndex`` with
the bundled embedder (the time to embed them is printed), and each of the 100 questions is
searched through ``LocalIndex.search``. Figures per half (benchmarks/README.md, "Splits":
tune = questions 1-50, held-out = 51-100): the share of the questions' gold paragraphs
among the top 2 and top 4 documents, and among the top 10.

    python benchmarks/hybrid_hotpot.py            # BM25, vectors alone, hybrid as shipped
    python benchmarks/hybrid_hotpot.py --grid     # + RRF weight / candidates / floor grid
    python benchmarks/hybrid_hotpot.py --pool     # + each question's own 10 paragraphs

``--grid`` is how ``gather.fusion``'s values were chosen (on the tune half; the held-out
column is printed beside it, never used to choose); it also prints the cosine of the
questions with their gold paragraphs and with the rest, for the floor. ``--pool`` ranks
each question's ten paragraphs (two gold, eight distractors) in an index of its own, the
setting of relevance_hotpot.py.
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
from qa_lab import DATA, tune_size

from assay.gather.documents import Document, read_file
from assay.gather.fusion import DEFAULT_FUSION, Fusion
from assay.gather.index import LocalIndex
from assay.gather.vectors import passage_text
from assay.reading.embed import default_embedder

VECTORS_ONLY = Fusion(vector_weight=1e9, floor=-1.0)  # BM25's votes only break ties
DEPTHS = (2, 4, 10)


def gold_shares(
    index: LocalIndex, items: Sequence[dict[str, Any]], *, lexical: bool = False
) -> list[float]:
    """For each depth, the share of the items' gold paragraphs among that many hits."""
    found = [0] * len(DEPTHS)
    total = 0
    for item in items:
        gold = {title for title, _ in item["supporting_facts"]}
        titles = [h.title for h in index.search(item["question"], max(DEPTHS), lexical=lexical)]
        total += len(gold)
        for i, depth in enumerate(DEPTHS):
            found[i] += len(gold & set(titles[:depth]))
    return [f / total for f in found]


def row(label: str, halves: list[list[float]]) -> str:
    cells = "  ".join(" ".join(f"{s:.3f}" for s in shares) for shares in halves)
    return f"{label:<44} {cells}"


def header(label: str) -> str:
    depths = " ".join(f"@{d:<4}" for d in DEPTHS)
    return f"{label:<44} {'tune ' + depths:<19}  {'held ' + depths}"


def measure(
    index: LocalIndex, halves: list[list[dict[str, Any]]], fusion: Fusion | None
) -> list[list[float]]:
    if fusion is None:
        return [gold_shares(index, half, lexical=True) for half in halves]
    index.fusion = fusion
    return [gold_shares(index, half) for half in halves]


def cosines(docs: list[Document], halves: list[list[dict[str, Any]]]) -> None:
    """Percentiles of the question's cosine with its gold paragraphs and with all others."""
    embedder = default_embedder()
    vectors = embedder.embed([passage_text(d.title, d.text) for d in docs])
    title_row = {d.title: i for i, d in enumerate(docs)}
    print("\ncosine of question and paragraph   p1    p5    p25   p50   p95  share < 0.1/0.2/0.3")
    for name, half in zip(("tune", "held"), halves, strict=True):
        gold_scores, other_scores = [], []
        for item in half:
            scores = vectors @ embedder.embed([item["question"]])[0]
            gold = {title_row[t] for t, _ in item["supporting_facts"]}
            gold_scores.extend(scores[list(gold)])
            other_scores.extend(np.delete(scores, list(gold)))
        for label, values in (("gold", gold_scores), ("others", other_scores)):
            p = np.percentile(values, [1, 5, 25, 50, 95])
            below = " / ".join(f"{np.mean(np.array(values) < f):.3f}" for f in (0.1, 0.2, 0.3))
            print(f"  {name} {label:<28} " + " ".join(f"{x:5.2f}" for x in p) + f"  {below}")


def grid(index: LocalIndex, halves: list[list[dict[str, Any]]]) -> None:
    print("\n" + header("grid: weight of vectors, candidates, floor (k=60)"))
    for weight in (0.5, 0.75, 1.0, 1.5, 2.0):
        for candidates in (10, 20, 50, 100):
            for floor in (0.0, 0.1, 0.2, 0.3):
                fusion = Fusion(vector_weight=weight, candidates=candidates, floor=floor)
                label = f"w={weight:<4} K={candidates:<3} floor={floor}"
                print(row(label, measure(index, halves, fusion)), flush=True)
    for k in (10, 30, 100):
        print(
            row(f"k={k} (defaults otherwise)", measure(index, halves, replace(DEFAULT_FUSION, k=k)))
        )


def pool(docs: list[Document], halves: list[list[dict[str, Any]]]) -> None:
    """Each question's ten paragraphs in an index of their own."""
    by_title = {d.title: d for d in docs}
    embedder = default_embedder()
    print("\n" + header("each question's 10 paragraphs"))
    settings: list[tuple[str, Fusion | None]] = [("bm25", None), ("vectors alone", VECTORS_ONLY)]
    settings += [(f"hybrid, vector weight {w}", replace(DEFAULT_FUSION, vector_weight=w))
                 for w in (0.5, 1.0, 1.5)]  # fmt: skip
    for label, fusion in settings:
        halves_shares = []
        for half in halves:
            sums = [0.0] * len(DEPTHS)
            for item in half:
                with LocalIndex(":memory:", embedder=embedder) as index:
                    index.add_documents(by_title[t] for t, _ in item["context"])
                    shares = measure(index, [[item]], fusion)[0]
                sums = [s + x for s, x in zip(sums, shares, strict=True)]
            halves_shares.append([s / len(half) for s in sums])
        print(row(label, halves_shares))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DATA, help="the folder of both files")
    parser.add_argument("--grid", action="store_true")
    parser.add_argument("--pool", action="store_true")
    args = parser.parse_args()
    items = json.loads((args.data / "hotpotqa-100.json").read_text())
    cut = tune_size(len(items))
    halves = [items[:cut], items[cut:]]
    docs = read_file(args.data / "hotpotqa-100-corpus.json")
    embedder = default_embedder()
    embedder.embed(["warm up"])  # the model's load is not embedding time
    index = LocalIndex(":memory:", embedder=embedder)
    started = time.perf_counter()
    index.add_documents(docs)
    took = time.perf_counter() - started
    status = index.vector_status()
    print(
        f"{len(docs)} documents, {status.passages} passages, {status.vectors} vectors: "
        f"added and embedded in {took:.1f} s ({status.vectors / took:.0f} passages/s, "
        f"{embedder.threads} thread(s)); {len(halves[0])} tune + {len(halves[1])} held questions"
    )
    print(header("whole corpus: gold paragraphs among the top"))
    print(row("bm25 (--lexical)", measure(index, halves, None)))
    print(row("vectors alone", measure(index, halves, VECTORS_ONLY)))
    print(row("hybrid as shipped", measure(index, halves, DEFAULT_FUSION)))
    print(f"  (shipped: {DEFAULT_FUSION})")
    if args.grid:
        cosines(docs, halves)
        grid(index, halves)
    if args.pool:
        pool(docs, halves)


if __name__ == "__main__":
    main()
