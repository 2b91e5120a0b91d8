"""Time the local index on 10,000 documents: bulk add, then search latency.

    .venv/bin/python benchmarks/index_10k.py [--docs N] [--queries Q] [--corpus PATH]

Without ``--corpus`` it writes N (default 10,000) Markdown files of synthetic text (a
Zipf-distributed pseudo-word vocabulary, seeded, ~250 words each) into a temporary folder.
It then measures, each into a fresh ASSAY_HOME:

* ``assay index add DIR`` through the real CLI (a subprocess, so Python start-up counts);
* ``LocalIndex.add_paths([DIR])`` through the API;
* Q (default 100) searches of 1-4 words: median and p95 latency through the API, and
  through ``assay index search QUERY --json`` as subprocesses.

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
        took = cli(cli_home, "add", str(corpus))
        with LocalIndex(cli_home / INDEX_FILE) as index:
            stats = index.stats()
        print(
            f"CLI  `assay index add`: {took:.2f} s for {stats.documents} documents "
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

        with LocalIndex(cli_home / INDEX_FILE) as index:
            index.search("warm up")
            latencies, hit_counts = [], []
            for query in queries:
                started = time.perf_counter()
                hit_counts.append(len(index.search(query, limit=10)))
                latencies.append(time.perf_counter() - started)
        report("API  LocalIndex.search (limit 10)", latencies)
        print(f"     queries with hits: {sum(1 for n in hit_counts if n)}/{len(queries)}")
        report(
            "CLI  `assay index search --json` (process start included)",
            [cli(cli_home, "search", q, "--json") for q in queries],
        )


if __name__ == "__main__":
    main()
