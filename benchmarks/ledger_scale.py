"""How a run's ledgers scale: record, verify and report for 100, 1,000 and 5,000 claims.

    .venv/bin/python benchmarks/ledger_scale.py [--sizes 100 1000 5000] [--fsync never|always]

For each size N it builds a synthetic run in a temporary ASSAY_HOME, with no network and
no model: 2N/5 sources (real snapshots, through the source ledger), each stating five
facts; every fact is stated by two sources of different domains. Then, timed apart:

* record   each source's claims appended with ``record_claims`` (the research agent's
           path: one durable append per claim, with its chain entry), N claims in all;
* verify   one ``VerificationEngine.verify_all`` pass with the extractive judge, every
           source offered as corroboration (as the research agent and deep research do);
* report   ``write_report``: the short answer and report.md.

It prints one row per size and the growth of each phase per claim against the smallest
size (1.0 is linear). Not part of the test suite; it asserts nothing.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import tempfile
import time
from pathlib import Path

from assay.claims.engine import VerificationEngine
from assay.claims.extract import DraftClaim, record_claims
from assay.config import load_settings
from assay.engines.extractive.judge import ExtractiveJudge
from assay.protocols.research.synthesis import write_report
from assay.protocols.runner import RunContext, start_run
from assay.store.sources import SourceLedger

FACTS_PER_SOURCE = 5
SYLLABLES = ["ka", "lo", "mi", "ren", "sa", "tu", "vel", "dor", "bri", "an", "ox", "qui"]
THINGS = ["bridge", "harbour", "observatory", "library", "canal", "tower", "museum"]


def _name(rng: random.Random) -> str:
    return "".join(rng.choice(SYLLABLES) for _ in range(3)).capitalize()


def facts(count: int, rng: random.Random) -> list[str]:
    return [
        f"The {_name(rng)} {rng.choice(THINGS)} was completed in {rng.randint(1700, 2020)} "
        f"by the {_name(rng)} company."
        for _ in range(count)
    ]


def _ledger(context: RunContext) -> SourceLedger:
    # The run's own ledger where the run holds one; a fresh one on older code.
    run = context.run
    held = getattr(run, "source_ledger", None)
    return held if isinstance(held, SourceLedger) else SourceLedger(run.dir, fsync=run.fsync)


def record(context: RunContext, claims: int, rng: random.Random) -> None:
    stated = facts(claims, rng)
    groups = [stated[i : i + FACTS_PER_SOURCE] for i in range(0, claims, FACTS_PER_SOURCE)]
    ledger = _ledger(context)
    for copy in ("a", "b"):  # every fact from two origins; the second copy adds no claim
        for number, group in enumerate(groups):
            text = " ".join(group)
            url = f"http://site{number}{copy}.test/page"
            source = ledger.add(
                url=url, final_url=url, title=f"Page {number}", text=text,
                content_type="text/html", accessed_at="2026-11-30T00:00:00.000Z",
            )  # fmt: skip
            drafts = []
            for sentence in group:
                start = text.index(sentence)
                drafts.append(DraftClaim(sentence, sentence, start, start + len(sentence)))
            record_claims(context.run, source.id, drafts, created_by="bench", reason="bench")


async def verify(context: RunContext) -> int:
    every = [r.id for r in _ledger(context).records()]
    engine = VerificationEngine(context.run, ExtractiveJudge())
    return len(await engine.verify_all(corroborators=every))


def measure(claims: int, fsync: str, seed: int) -> dict[str, float]:
    rng = random.Random(seed)
    with tempfile.TemporaryDirectory(prefix="assay-ledger-") as home:
        settings = load_settings(home=Path(home), fsync=fsync)
        context = start_run(settings, "When was the bridge completed?", "research")
        times: dict[str, float] = {}
        start = time.perf_counter()
        record(context, claims, rng)
        times["record"] = time.perf_counter() - start
        start = time.perf_counter()
        asyncio.run(verify(context))
        times["verify"] = time.perf_counter() - start
        start = time.perf_counter()
        asyncio.run(write_report(context, None, ""))
        times["report"] = time.perf_counter() - start
        recorded = sum(1 for _ in (context.run.dir / "claims.jsonl").open("rb"))
        if recorded != claims:
            raise SystemExit(f"expected {claims} claims, the run has {recorded}")
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[100, 1000, 5000])
    parser.add_argument("--fsync", choices=["never", "always"], default="always")
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    phases = ("record", "verify", "report")
    print(f"fsync {args.fsync}; seconds, and growth per claim against {args.sizes[0]} claims")
    print(f"{'claims':>7} " + " ".join(f"{p:>9} {'growth':>6}" for p in phases) + f" {'total':>9}")
    base: dict[str, float] = {}
    for size in args.sizes:
        times = measure(size, args.fsync, args.seed)
        per_claim = {p: times[p] / size for p in phases}
        base = base or per_claim
        cells = " ".join(f"{times[p]:9.2f} {per_claim[p] / base[p]:6.2f}" for p in phases)
        print(f"{size:>7} {cells} {sum(times.values()):9.2f}", flush=True)


if __name__ == "__main__":
    main()
