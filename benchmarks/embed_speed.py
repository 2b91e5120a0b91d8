"""Time the bundled sentence embedder: load, memory, throughput, and the CLI's start-up.

    .venv/bin/python benchmarks/embed_speed.py [--sentences N] [--threads 1 2] [--data PATH]
        [--max-tokens 256] [--runs 10]

Prints, in this order: the time to load (the sha256 checks of the model and tokenizer
files, the ONNX session, the tokenizer) and the process's RSS before and after; for each
thread count, sentences per second (the first N evidence sentences of climate-fever-dev,
with the vector cache off, so every sentence runs the model) in batches as ``embed``
makes them and one sentence at a time, the judge's typical call (a claim against a
24-sentence shortlist) per second, and the RSS after; and the median wall time of
``assay --version`` over ``--runs`` runs. Not part of the test suite; it asserts nothing.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

import psutil

from assay.reading.embed import MAX_TOKENS, Embedder

DATA = Path(__file__).resolve().parents[2] / "shared/data/climate-fever-dev.jsonl"
ASSAY = str(Path(sys.executable).with_name("assay"))


def sentences(path: Path, limit: int) -> list[str]:
    found: dict[str, None] = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        for evidence in json.loads(line)["evidences"]:
            found.setdefault(evidence["evidence"], None)
    return list(found)[:limit]


def megabytes(process: psutil.Process) -> float:
    return float(process.memory_info().rss) / 2**20


def throughput(embedder: Embedder, texts: list[str]) -> tuple[float, float]:
    """Sentences per second, all at once and one at a time (after one warm-up call)."""
    embedder.embed(texts[:8])
    started = time.perf_counter()
    embedder.embed(texts)
    batched = len(texts) / (time.perf_counter() - started)
    started = time.perf_counter()
    for text in texts:
        embedder.embed([text])
    single = len(texts) / (time.perf_counter() - started)
    return batched, single


def judge_calls(embedder: Embedder, texts: list[str], calls: int = 20) -> float:
    """A claim against 24 sentences, as the extractive judge's shortlist asks, per second."""
    started = time.perf_counter()
    for call in range(calls):
        shortlist = texts[(call * 24) % len(texts) :][:24]
        embedder.similarity(texts[-1 - call], shortlist)
    return calls / (time.perf_counter() - started)


def cli_version(runs: int) -> float:
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        subprocess.run([ASSAY, "--version"], check=True, capture_output=True, env=os.environ)
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sentences", type=int, default=500)
    parser.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--max-tokens", type=int, default=MAX_TOKENS)
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--runs", type=int, default=10, help="runs of assay --version")
    args = parser.parse_args()
    process = psutil.Process()
    texts = sentences(args.data, args.sentences)
    before = megabytes(process)
    started = time.perf_counter()
    first = Embedder(threads=args.threads[0], max_tokens=args.max_tokens, cache_texts=0)
    first.embed(["load the model"])
    print(f"load: {time.perf_counter() - started:.2f} s (sha256 checks, session, tokenizer)")
    print(f"RSS: {before:.0f} MB before, {megabytes(process):.0f} MB after the load")
    print(f"{len(texts)} sentences (climate-fever evidence), max {args.max_tokens} word pieces:")
    for threads in args.threads:
        embedder = first if threads == args.threads[0] else None
        embedder = embedder or Embedder(threads=threads, max_tokens=args.max_tokens, cache_texts=0)
        batched, single = throughput(embedder, texts)
        calls = judge_calls(embedder, texts)
        print(
            f"  {threads} thread(s): {batched:.0f} sentences/s batched, {single:.0f}/s one at "
            f"a time; {calls:.1f} judge calls/s (a claim and 24 sentences); RSS "
            f"{megabytes(process):.0f} MB (each thread count has its own session)"
        )
    print(f"assay --version: {cli_version(args.runs) * 1000:.0f} ms (median of {args.runs})")


if __name__ == "__main__":
    main()
