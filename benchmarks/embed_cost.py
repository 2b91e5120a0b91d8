"""What the sentence embedder costs a research run: time inside ``Embedder.embed`` per run.

    python benchmarks/embed_cost.py --runs 10 [--offset 0] [--data DIR]

N HotpotQA questions (``--offset`` into hotpotqa-100.json; 50 starts the held-out half) as
``assay research`` runs through ``assay eval`` over the lab serving the HotpotQA-100 corpus
(as qa_hotpot.py does), one run at a time, extractive engine, no model server. The
benchmark wraps ``Embedder.embed`` (every caller's entry: the judge, relevance, names),
``Embedder._encode`` (the model itself, for texts the cache did not hold) and
``Embedder._load`` from outside, and splits the totals per run at the batch's start/end
hooks. Per run: the run's wall time (the batch's ``wall_seconds``), the wall and CPU time
inside ``embed`` and their share of the wall time, texts asked for and texts the model
ran on. The model's load (once per process) is counted in the first run and shown apart.
The product code is not changed; nothing is asserted.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, fields
from pathlib import Path
from types import FrameType
from typing import Any

from qa_lab import DATA

from assay.batch import BatchEvents
from assay.config import load_settings
from assay.evaluation.runner import EvalRequest, run_eval
from assay.reading.embed import Embedder


@dataclass
class Spent:
    embed_wall: float = 0.0
    embed_cpu: float = 0.0
    encode_wall: float = 0.0
    load_wall: float = 0.0
    calls: int = 0
    texts: int = 0
    encoded: int = 0

    def minus(self, other: Spent) -> Spent:
        return Spent(*(getattr(self, f.name) - getattr(other, f.name) for f in fields(self)))


def caller() -> str:
    """The function that asked for the vectors: the first frame outside the embedder."""
    frame: FrameType | None = sys._getframe(2)
    inside = ("assay.reading.embed", __name__)
    while frame is not None and frame.f_globals.get("__name__") in inside:
        frame = frame.f_back
    if frame is None:
        return "?"
    return f"{frame.f_globals.get('__name__')}.{frame.f_code.co_name}"


class Meter:
    """Wraps the Embedder's methods for the process; thread-safe totals in ``spent``, and
    the wall time inside ``embed`` by caller in ``callers``."""

    def __init__(self) -> None:
        self.spent = Spent()
        self.callers: Counter[str] = Counter()
        self.lengths: list[int] = []  # characters of each text the model ran on
        self._lock = threading.Lock()

    def install(self) -> None:
        embed, encode, load = Embedder.embed, Embedder._encode, Embedder._load

        def timed_embed(embedder: Embedder, texts: Sequence[str]) -> Any:
            wall, cpu, who = time.perf_counter(), time.thread_time(), caller()
            try:
                return embed(embedder, texts)
            finally:
                took = time.perf_counter() - wall
                self._add(embed_wall=took, calls=1, texts=len(texts),
                          embed_cpu=time.thread_time() - cpu)  # fmt: skip
                with self._lock:
                    self.callers[who] += took

        def timed_encode(embedder: Embedder, texts: Sequence[str]) -> Any:
            started = time.perf_counter()
            try:
                return encode(embedder, texts)
            finally:
                self._add(encode_wall=time.perf_counter() - started, encoded=len(texts))
                with self._lock:
                    self.lengths.extend(len(t) for t in texts)

        def timed_load(embedder: Embedder) -> Any:
            first = embedder._loaded is None
            started = time.perf_counter()
            try:
                return load(embedder)
            finally:
                if first:
                    self._add(load_wall=time.perf_counter() - started)

        Embedder.embed = timed_embed  # type: ignore[method-assign]
        Embedder._encode = timed_encode  # type: ignore[method-assign]
        Embedder._load = timed_load  # type: ignore[method-assign]

    def _add(self, **amounts: float) -> None:
        with self._lock:
            for name, amount in amounts.items():
                setattr(self.spent, name, getattr(self.spent, name) + amount)

    def snapshot(self) -> Spent:
        with self._lock:
            return Spent(**vars(self.spent))


def hooks(meter: Meter, per_run: dict[str, Spent]) -> BatchEvents:
    """Split the meter's totals per run (runs go one at a time)."""
    starts: dict[str, Spent] = {}

    def started(job: Any) -> None:
        starts[job.id] = meter.snapshot()

    def ended(row: Any) -> None:
        per_run[row.id] = meter.snapshot().minus(starts.get(row.id, Spent()))

    return BatchEvents(started=[started], ended=[ended])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--offset", type=int, default=0)
    parser.add_argument("--sites", type=int, default=8)
    parser.add_argument("--data", type=Path, default=DATA, help="the folder of both files")
    args = parser.parse_args()
    meter = Meter()
    meter.install()
    home = Path(tempfile.mkdtemp(prefix="assay-embed-cost-"))
    request = EvalRequest(
        dataset=args.data / "hotpotqa-100.json", out_dir=home / "eval",
        settings=load_settings(home=home), limit=args.runs, offset=args.offset,
        corpus=args.data / "hotpotqa-100-corpus.json", sites=args.sites, concurrency=1,
    )  # fmt: skip
    per_run: dict[str, Spent] = {}
    started, cpu = time.perf_counter(), time.process_time()
    data = run_eval(request, events=hooks(meter, per_run))
    wall, cpu = time.perf_counter() - started, time.process_time() - cpu
    print(f"{len(data['rows'])} runs (items {args.offset}-{args.offset + args.runs - 1}), "
          f"one at a time; eval wall {wall:.1f} s, process CPU {cpu:.1f} s; "
          f"model load {meter.spent.load_wall:.2f} s (in run 1)")  # fmt: skip
    print(f"{'run':>3} {'wall s':>7} {'embed s':>8} {'share':>6} {'embed CPU s':>11} "
          f"{'model s':>8} {'calls':>6} {'texts':>6} {'encoded':>8}")  # fmt: skip
    shares = []
    total_wall = 0.0
    for number, row in enumerate(data["rows"], start=1):
        spent = per_run.get(row["id"], Spent())
        run_wall = float(row["wall_seconds"]) or 1e-9
        total_wall += run_wall
        shares.append(spent.embed_wall / run_wall)
        print(f"{number:>3} {run_wall:>7.1f} {spent.embed_wall:>8.2f} {shares[-1]:>6.1%} "
              f"{spent.embed_cpu:>11.2f} {spent.encode_wall:>8.2f} {spent.calls:>6} "
              f"{spent.texts:>6} {spent.encoded:>8}")  # fmt: skip
    total = meter.spent
    print(f"all: embed {total.embed_wall:.1f} s of {total_wall:.1f} s run wall "
          f"({total.embed_wall / total_wall:.1%}; without the model load "
          f"{(total.embed_wall - total.load_wall) / total_wall:.1%}); embed CPU "
          f"{total.embed_cpu:.1f} s of {cpu:.1f} s process CPU; median run share "
          f"{statistics.median(shares):.1%}, max {max(shares):.1%}; "
          f"{total.texts} texts asked, {total.encoded} run through the model")  # fmt: skip
    lengths = sorted(meter.lengths) or [0]
    print(f"texts run through the model: median {statistics.median(lengths):.0f} characters, "
          f"p90 {lengths[int(0.9 * (len(lengths) - 1))]}, max {lengths[-1]}")  # fmt: skip
    print("time inside embed by caller:")
    for who, seconds in meter.callers.most_common():
        print(f"  {seconds:6.2f} s  {who}")


if __name__ == "__main__":
    main()
