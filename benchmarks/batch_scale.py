"""Batch throughput: N extractive questions over 1, 2 and 4 local `assay worker`s.

Starts a redis-server on a loopback port and the lab over the HotpotQA-100 corpus (8 sites),
then for each worker count: a fresh run store, N `research` questions enqueued with
`assay batch --broker`, W `assay worker --threads 1` processes, and the wall time until the
last row is written. Where the time goes, summed over the runs: the protocol phases (from
each run's phase events), and the floor the 1 s/domain pacing sets (the busiest lab site's
page requests, one per second), and the CPU time the workers used (on a machine with few
cores, the ceiling) against the CPU time of this process, where the lab serves pages and
answers searches. Needs the queue extra and redis-server.

    nice python benchmarks/batch_scale.py --questions 20
    python benchmarks/batch_scale.py --questions 100 --workers 1 2 4
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from collections import Counter, defaultdict
from datetime import datetime
from pathlib import Path
from typing import Any

from assay.lab import Lab, serve_lab
from assay.store.eventlog import LOG_FILE

DATA = next(
    (p / "shared" / "data" for p in Path(__file__).resolve().parents if (p / "shared").is_dir()),
    Path("/work/shared/data"),
)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def phase_seconds(run_dir: Path) -> dict[str, float]:
    """Seconds per phase of one run, from its phase.started / phase.finished events."""
    opened: dict[str, datetime] = {}
    spent: dict[str, float] = defaultdict(float)
    for line in (run_dir / LOG_FILE).read_text().splitlines():  # raw: the ts is needed
        event = json.loads(line)
        phase = (event.get("data") or {}).get("phase")
        at = datetime.fromisoformat(event["ts"].replace("Z", "+00:00"))
        if event["type"] == "phase.started":
            opened[phase] = at
        elif event["type"] == "phase.finished" and phase in opened:
            spent[phase] += (at - opened.pop(phase)).total_seconds()
    return spent


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of a live process (Linux /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def process_cpu() -> float:
    """CPU time of this process: the lab's servers and search run in it."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def one_round(lab: Lab, url: str, questions: Path, workers: int) -> dict[str, Any]:
    home = Path(tempfile.mkdtemp(prefix=f"assay-scale-{workers}-"))
    out = home / "results.jsonl"
    env = {**os.environ, "ASSAY_HOME": str(home)}
    subprocess.run(["redis-cli", "-u", url, "flushdb"], check=True, capture_output=True)
    procs = [
        subprocess.Popen(
            [sys.executable, "-m", "assay.cli", "worker", "--broker", url, "--threads", "1"],
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        for _ in range(workers)
    ]
    lab.reset()
    lab_cpu = process_cpu()
    started = time.monotonic()
    subprocess.run(
        [sys.executable, "-m", "assay.cli", "batch", str(questions), "--broker", url, "--out",
         str(out), "--quiet", "--home", str(home), "--search", "searxng", "--searxng-url",
         lab.sites[0], "--allow-host", "127.0.0.0/8"],
        env=env, check=True, capture_output=True,
    )  # fmt: skip
    wall = time.monotonic() - started
    lab_cpu = process_cpu() - lab_cpu
    cpu = sum(cpu_seconds(proc.pid) for proc in procs)
    for proc in procs:
        proc.terminate()
    for proc in procs:
        proc.wait(30)
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    phases: Counter[str] = Counter()
    for row in rows:
        if row.get("run_dir"):
            phases.update(phase_seconds(Path(row["run_dir"])))
    pages = Counter(site for site, target, _ in lab.hits() if not target.startswith("/search"))
    return {
        "workers": workers, "wall": wall, "done": sum(r["status"] == "done" for r in rows),
        "per_minute": 60 * len(rows) / wall, "run_seconds": sum(r["wall_seconds"] for r in rows),
        "phases": dict(phases), "page_requests": sum(pages.values()),
        "pacing_floor": max(pages.values(), default=0), "cpu": cpu, "lab_cpu": lab_cpu,
    }  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--questions", type=int, default=20)
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2, 4])
    parser.add_argument("--sites", type=int, default=8)
    args = parser.parse_args()
    if shutil.which("redis-server") is None:
        sys.exit("redis-server is not installed")
    items = json.loads((DATA / "hotpotqa-100.json").read_text())[: args.questions]
    questions = Path(tempfile.mkdtemp(prefix="assay-scale-q-")) / "questions.jsonl"
    questions.write_text("".join(
        json.dumps({"id": item["_id"], "question": item["question"]}) + "\n" for item in items
    ))  # fmt: skip
    port = free_port()
    redis = subprocess.Popen(
        ["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--save", "",
         "--appendonly", "no"], stdout=subprocess.DEVNULL,
    )  # fmt: skip
    url = f"redis://127.0.0.1:{port}/0"
    time.sleep(0.5)
    try:
        with serve_lab(DATA / "hotpotqa-100-corpus.json", sites=args.sites, faults=False) as lab:
            print(f"{args.questions} questions, extractive, lab {len(lab.pages)} pages on "
                  f"{args.sites} sites; workers: assay worker --threads 1")  # fmt: skip
            for workers in args.workers:
                r = one_round(lab, url, questions, workers)
                phases = "  ".join(f"{p} {s:.0f}s" for p, s in sorted(r["phases"].items()))
                print(f"{workers} worker(s): wall {r['wall']:.1f}s  {r['per_minute']:.1f} "
                      f"questions/min  done {r['done']}/{args.questions}  run time summed "
                      f"{r['run_seconds']:.0f}s  page requests {r['page_requests']} "
                      f"(pacing floor {r['pacing_floor']}s on the busiest site)  worker CPU "
                      f"{r['cpu']:.0f}s  lab CPU {r['lab_cpu']:.0f}s")  # fmt: skip
                print(f"   phases summed over runs: {phases}")
    finally:
        redis.terminate()
        redis.wait(10)


if __name__ == "__main__":
    main()
