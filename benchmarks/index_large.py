"""Time the local index on single large documents: add, then search.

    .venv/bin/python benchmarks/index_large.py [--sizes 0.5 1 2 30] [--searches 5]

For each size (in MB) it writes one plain-text file of ten-word lines (a seeded random
pick of a small vocabulary, so every common word matches thousands of lines) with the
phrase "the chadstone river" on one line in the middle, adds it to a fresh index, and
times ``LocalIndex.search("chadstone river")`` (the median of ``--searches`` runs; each
search returns a snippet). Not part of the test suite; it asserts nothing.
"""

from __future__ import annotations

import argparse
import random
import statistics
import tempfile
import time
from pathlib import Path

from assay.gather.index import LocalIndex

WORDS = ["alpha", "river", "stone", "lamp", "north", "grain", "tower", "field", "cloud", "marsh"]


def write_document(path: Path, megabytes: float, rng: random.Random) -> int:
    lines, size = [], 0
    while size < megabytes * 1_000_000:
        line = " ".join(rng.choice(WORDS) for _ in range(10)) + "\n"
        lines.append(line)
        size += len(line)
    lines[len(lines) // 2] = "where the chadstone river meets the sea\n"
    path.write_text("".join(lines), encoding="utf-8")
    return len(lines)


def measure(megabytes: float, searches: int) -> dict[str, float]:
    with tempfile.TemporaryDirectory() as folder:
        directory = Path(folder)
        document = directory / "large.txt"
        lines = write_document(document, megabytes, random.Random(7))
        with LocalIndex(directory / "index.sqlite") as index:
            start = time.perf_counter()
            index.add_paths([document])
            added = time.perf_counter() - start
            timings = []
            for _ in range(searches):
                start = time.perf_counter()
                hits = index.search("chadstone river")
                timings.append(time.perf_counter() - start)
            assert hits and hits[0].snippet
    return {"mb": megabytes, "lines": lines, "add_s": added, "search_s": statistics.median(timings)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=float, nargs="+", default=[0.5, 1, 2, 30])
    parser.add_argument("--searches", type=int, default=5)
    args = parser.parse_args()
    print(f"{'MB':>6} {'lines':>9} {'add s':>8} {'search s (median)':>18}")
    for megabytes in args.sizes:
        row = measure(megabytes, args.searches)
        print(f"{row['mb']:>6g} {row['lines']:>9,} {row['add_s']:>8.2f} {row['search_s']:>18.4f}")


if __name__ == "__main__":
    main()
