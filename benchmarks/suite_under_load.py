"""The test suite's time on a loaded machine: another job keeps every core busy meanwhile.

    .venv/bin/python benchmarks/suite_under_load.py                 # one busy process a core
    .venv/bin/python benchmarks/suite_under_load.py --busy 0        # the machine quiet
    .venv/bin/python benchmarks/suite_under_load.py --runs 3 -- -n 3   # pytest's own options

"Loaded" is made repeatable here: ``--busy`` processes (default: one per core) spin on the
CPU from before the suite starts until it ends, so the suite gets about half the machine, as
it does beside a model benchmark (llama.cpp on both cores) or a second CI job. Prints each
run's wall time, the suite's CPU seconds and the load average at its end.
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SPIN = "while True: pass"


def timed_suite(pytest_args: list[str]) -> tuple[float, float, bool]:
    """Wall seconds, CPU seconds (the suite and its children) and whether it passed."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", *pytest_args],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        check=False,
    )
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    print(done.stdout.strip().splitlines()[-1] if done.stdout.strip() else "(no output)")
    return wall, cpu, done.returncode == 0


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--busy", type=int, default=os.cpu_count() or 1, help="spinning processes (0: quiet)"
    )
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument("pytest_args", nargs="*", help="passed to pytest after --")
    args = parser.parse_args(argv)
    spinners = [subprocess.Popen([sys.executable, "-c", SPIN]) for _ in range(args.busy)]
    try:
        time.sleep(1 if spinners else 0)
        print(f"cores {os.cpu_count()}, busy processes {args.busy}")
        for run in range(1, args.runs + 1):
            wall, cpu, passed = timed_suite(args.pytest_args)
            load = os.getloadavg()[0]
            verdict = "passed" if passed else "FAILED"
            print(f"run {run}: wall {wall:.1f} s, suite CPU {cpu:.1f} s, load {load:.2f}", verdict)
    finally:
        for spinner in spinners:
            spinner.kill()
            spinner.wait()


if __name__ == "__main__":
    main()
