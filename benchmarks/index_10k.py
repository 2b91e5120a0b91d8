"""Time the local index on 10,000 documents: bulk add, vectors, then search latency.

    .venv/bin/python benchmarks/index_10k.py [--docs N] [--queries Q] [--corpus PATH]
                                             [--no-vectors] [--cli-queries C]

Without ``--corpus`` it writes N (default 10,000) Markdown files of synthetic text (a
Zipf-distributed pseudo-word vocabulary, seeded, ~250 words each) into a temporary folder.
It then measures, each into a fresh ASSAY_HOME:

* ``assay index add DIR --no-vectors`` through the real CLI (a subprocess, so Python
  start-up counts): words only;
* ``LocalIndex.add_paths([DIR])`` through the API, without an embedder;
* ``LocalIndex.fill_vectors()`` on the CLI's index with the bundled embedder
  (``ASSAY_EMBEDDING_THREADS`` threads, default 1): the time to embed every passage
  (skipped with ``--no-vectors``);
* Q (default 100) searches of 1-4 words: median and p95 latency through the API by words
  only (``lexical=True``) and hybrid (the first hybrid search, which loads the model and
  reads the vector matrix, shown apart), and through ``assay index search QUERY --json``
  [``--lexical``] as subprocesses (the first C of the queries, default all; a hybrid
  search in a fresh process loads the model and the matrix every time).

The synthetic words are split into many word pieces, so every passage reaches the
embedder's 256-piece limit: the embedding time is that of long passages.

Not part of the test suite; it asserts nothing.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from itertools import accumulate
from pathlib import Path

from assay.gather.index import INDEX_FILE, LocalIndex
from assay.reading.embed import default_embedder

ASSAY = str(Path(sys.executable).with_name("assay"))
SYLLABLES = ["ka", "lo", "mi", "ren", "sa", "tu", "vel", "dor", "bri", "an", "ox", "qui", "zen"]


def vocabulary(rng: random.Random, size: int = 6000) -> list[str]:
    words: set[str] = set()
    while len(words) < size:
        words.add("".join(rng.choice(SYLLABLES) for _ in range(rng.randint(2, 4))))
    return sorted(words)


def write_corpus(directory: Path, count: int, rng: random.Random, words: list[str]) -> int:
    cumulative = list(accumulate(1 / (rank + 1) for rank in range(len(words))))  # Zipf-like
    total = 0
    for i in range(count):
        paragraphs = []
        for _ in range(rng.randint(2, 5)):
            sentence_words = rng.choices(words, cum_weights=cumulative, k=rng.randint(40, 80))
            paragraphs.append(" ".join(sentence_words).capitalize() + ".")
        title = " ".join(rng.choices(words, k=3)).title()
        body = f"# {title}\n\n" + "\n\n".join(paragraphs) + "\n"
        sub = directory / f"part{i // 1000:02d}"
        sub.mkdir(exist_ok=True)
        (sub / f"doc{i:05d}.md").write_text(body, encoding="utf-8")
        total += len(body)
    return total


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))]


def cli(home: Path, *args: str) -> float:
    started = time.perf_counter()
    subprocess.run(
        [ASSAY, "index", *args, "--home", str(home)],
        check=True,
        stdout=subprocess.DEVNULL,
        env={**os.environ, "ASSAY_FSYNC": "never"},
    )
    return time.perf_counter() - started


def report(label: str, seconds: list[float]) -> None:
    median_ms, p95_ms = statistics.median(seconds) * 1000, percentile(seconds, 0.95) * 1000
    print(f"{label}: median {median_ms:.2f} ms, p95 {p95_ms:.2f} ms (n={len(seconds)})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--docs", type=int, default=10_000)
    parser.add_argument("--queries", type=int, default=100)
    parser.add_argument("--corpus", type=Path, help="index this file or folder instead")
    parser.add_argument("--no-vectors", action="store_true", help="words only, no embedding")
    parser.add_argument("--cli-queries", type=int, default=None)
    args = parser.parse_args()
    rng = random.Random(20240601)
    words = vocabulary(rng)
    queries = [
        " ".join(rng.choice(words[: 2000 if rng.random() < 0.7 else None]) for _ in range(n))
        for n in (rng.randint(1, 4) for _ in range(args.queries))
    ]
    with tempfile.TemporaryDirectory(prefix="assay-bench-") as tmp:
        root = Path(tmp)
        corpus = args.corpus
        if corpus is None:
            corpus = root / "corpus"
            corpus.mkdir()
            started = time.perf_counter()
            size = write_corpus(corpus, args.docs, rng, words)
            took = time.perf_counter() - started
            print(f"corpus: {args.docs} files, {size / 1e6:.1f} MB, written in {took:.2f} s")

        cli_home = root / "cli-home"
        took = cli(cli_home, "add", str(corpus), "--no-vectors")
        with LocalIndex(cli_home / INDEX_FILE) as index:
            stats = index.stats()
        print(
            f"CLI  `assay index add --no-vectors`: {took:.2f} s for {stats.documents} documents "
            f"({stats.documents / took:.0f} docs/s), index {stats.size_bytes / 1e6:.1f} MB"
        )

        started = time.perf_counter()
        with LocalIndex(root / "api-home" / INDEX_FILE) as index:
            added = index.add_paths([corpus]).documents
        took = time.perf_counter() - started
        print(
            f"API  LocalIndex.add_paths: {took:.2f} s for {added} documents "
            f"({added / took:.0f} docs/s)"
        )

        searches(cli_home, queries, vectors=not args.no_vectors, cli_queries=args.cli_queries)


def searches(home: Path, queries: list[str], *, vectors: bool, cli_queries: int | None) -> None:
    embedder = default_embedder()
    with LocalIndex(home / INDEX_FILE, embedder=embedder if vectors else None) as index:
        if vectors:
            started = time.perf_counter()
            made, _ = index.fill_vectors()
            took = time.perf_counter() - started
            print(
                f"API  LocalIndex.fill_vectors: {made} passages embedded in {took:.1f} s "
                f"({made / took:.1f} passages/s, {embedder.threads} thread(s); model load included)"
            )
        index.search("warm up", lexical=True)
        modes = [("by words (lexical=True)", True)] + ([("hybrid", False)] if vectors else [])
        for label, lexical in modes:
            if not lexical:
                started = time.perf_counter()
                index.search("first hybrid search")
                first = (time.perf_counter() - started) * 1000
                print(f"API  first hybrid search (vector matrix read): {first:.0f} ms")
            latencies, hit_counts = [], []
            for query in queries:
                started = time.perf_counter()
                hit_counts.append(len(index.search(query, limit=10, lexical=lexical)))
                latencies.append(time.perf_counter() - started)
            report(f"API  LocalIndex.search {label} (limit 10)", latencies)
            print(f"     queries with hits: {sum(1 for n in hit_counts if n)}/{len(queries)}")
    chosen = queries[:cli_queries]
    flags = [("--lexical",)] + ([()] if vectors else [])
    for flag in flags:
        mode = " ".join(flag) or "(hybrid)"
        report(
            f"CLI  `assay index search {mode} --json` (process start included)",
            [cli(home, "search", q, "--json", *flag) for q in chosen],
        )


if __name__ == "__main__":
    main()
