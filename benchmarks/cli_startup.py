"""Time how long the ``assay`` command takes to start and answer, process start included.

    .venv/bin/python benchmarks/cli_startup.py [--runs N] [--importtime]

Runs each of ``assay --version``, ``assay --help``, ``assay index search --json QUERY``
(on a fresh home with a 50-document index) and ``assay runs`` (on a home with three
finished runs) N times (default 20) as subprocesses of the venv's ``assay`` script, and
prints the median, p90 and min wall time of each. ``--importtime`` also prints the ten
slowest imports of ``python -X importtime -c "import assay.cli"``.

Not part of the test suite; it asserts nothing.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ASSAY = str(Path(sys.executable).with_name("assay"))


def make_home(root: Path) -> Path:
    """A home with a small index and three finished runs (through the API, not timed)."""
    from assay.gather.index import INDEX_FILE, LocalIndex
    from assay.store.runs import RunStore

    home = root / "home"
    docs = root / "docs"
    docs.mkdir(parents=True)
    for number in range(50):
        text = f"# Note {number}\n\nThe river delta {number} floods in spring; tide {number}.\n"
        (docs / f"note{number}.md").write_text(text, encoding="utf-8")
    with LocalIndex(home / INDEX_FILE) as index:
        index.add_paths([docs])
    store = RunStore(home, fsync=False)
    for number in range(3):
        run = store.create(f"benchmark topic {number}", protocol="research", config={})
        run.finish("done")
    return home


def time_command(args: list[str], env: dict[str, str], runs: int) -> list[float]:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run([ASSAY, *args], env=env, check=True, capture_output=True)
        times.append(time.perf_counter() - start)
    return times


def slowest_imports(count: int = 10) -> list[str]:
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", "import assay.cli"],
        capture_output=True,
        text=True,
        check=True,
    )
    rows = [line.split("|") for line in done.stderr.splitlines() if line.count("|") == 2]
    timed = [(int(r[1]), r[2].rstrip()) for r in rows if r[1].strip().isdigit()]
    return [f"{micros / 1000:8.1f} ms {name}" for micros, name in sorted(timed)[-count:][::-1]]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=20, help="Runs of each command.")
    parser.add_argument("--importtime", action="store_true", help="Show the slowest imports.")
    options = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        home = make_home(Path(tmp))
        env = {**os.environ, "ASSAY_HOME": str(home), "COLUMNS": "100"}
        commands = {
            "assay --version": ["--version"],
            "assay --help": ["--help"],
            "assay index search --json river": ["index", "search", "--json", "river"],
            "assay runs": ["runs"],
        }
        print(f"{'command':<34} {'median s':>9} {'p90 s':>7} {'min s':>7}  (n={options.runs})")
        for name, args in commands.items():
            times = sorted(time_command(args, env, options.runs))
            p90 = times[min(len(times) - 1, int(0.9 * len(times)))]
            print(f"{name:<34} {statistics.median(times):9.3f} {p90:7.3f} {times[0]:7.3f}")
    if options.importtime:
        print("\nslowest imports of `import assay.cli` (cumulative):")
        print("\n".join(slowest_imports()))


if __name__ == "__main__":
    main()
