"""Batches on dramatiq + a real redis-server (Debian's), started here on a loopback port.

Workers are real ``assay worker`` processes sharing this test's run store, configured (as
every worker is) with their own search settings and the signing key; the lab serves the
pages. Skipped, saying why, when redis-server is not installed (CI installs it).
"""

from __future__ import annotations

import itertools
import json
import os
import signal
import subprocess
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path

import pytest

from assay.lab import Lab
from tests.queue_fixtures import Start, needs_redis, wait_for

pytestmark = [pytest.mark.queue, needs_redis]


def lab_env(lab: Lab) -> dict[str, str]:
    """A worker's own configuration for searching the lab."""
    return {"ASSAY_SEARCH": "searxng", "ASSAY_SEARXNG_URL": lab.sites[0],
            "ASSAY_ALLOW_HOSTS": '["127.0.0.0/8"]'}  # fmt: skip


def write_questions(path: Path, count: int, lab_topics: list[str]) -> Path:
    lines = [
        json.dumps({"id": f"q{n:02d}", "question": f"What is known about the {lab_topics[n % 5]}?"})
        for n in range(count)
    ]
    path.write_text("\n".join(lines) + "\n")
    return path


TOPIC_NAMES = ["Halvorsen Lighthouse", "Velmar honeybee", "Tarn Valley tidal plant",
               "Kessler sourdough", "Mount Oskar volcano"]  # fmt: skip


def batch(home: Path, questions: Path, redis_url: str, *extra: str) -> Path:
    """``assay batch --broker``: the client names no search settings; the workers have them."""
    out = questions.with_suffix(".results.jsonl")
    done = subprocess.run(
        [sys.executable, "-m", "assay.cli", "batch", str(questions), "--broker", redis_url,
         "--out", str(out), "--quiet", "--home", str(home), *extra],
        capture_output=True, text=True, timeout=150, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return out


def gaps_by_site(lab: Lab, since: float) -> dict[str, list[float]]:
    times: dict[str, list[float]] = defaultdict(list)
    for site, target, at in lab.hits():
        if at >= since and not target.startswith("/search"):
            times[site].append(at)
    return {site: [b - a for a, b in itertools.pairwise(t)] for site, t in times.items()}


def test_six_jobs_over_three_workers_all_finish_pacing_each_domain(
    lab: Lab, isolated_home: Path, redis_url: str, workers: Start, tmp_path: Path,
) -> None:  # fmt: skip
    # Six jobs fill the three workers' six threads, so every site is asked for by several
    # processes at once; more jobs only repeat that moment. Each worker prefetches at most
    # four messages, so at least two workers must take a share.
    workers(3, env=lab_env(lab))
    questions = write_questions(tmp_path / "q.jsonl", 6, TOPIC_NAMES)
    since = time.monotonic()
    out = batch(isolated_home, questions, redis_url, "--protocol", "ask")
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert sorted(r["id"] for r in rows) == [f"q{n:02d}" for n in range(6)]
    assert all(r["status"] == "done" for r in rows), [r["reason"] for r in rows]
    pids = {json.loads((Path(r["run_dir"]) / "run.json").read_text())["pid"] for r in rows}
    assert len(pids) >= 2  # the work was shared out
    gaps = gaps_by_site(lab, since)
    assert gaps and all(g >= 1.0 for site in gaps.values() for g in site), gaps


def test_two_workers_fetching_one_domain_keep_a_second_apart(
    lab_corpus_dir: Path, isolated_home: Path, redis_url: str, workers: Start, tmp_path: Path,
) -> None:  # fmt: skip
    from assay.lab import serve_lab

    questions = write_questions(tmp_path / "q.jsonl", 3, TOPIC_NAMES)
    with serve_lab(lab_corpus_dir, sites=1, faults=False) as one_site:
        # One thread each, so a worker prefetches at most two of the three jobs: both work.
        workers(2, 1, env=lab_env(one_site))
        since = time.monotonic()
        out = batch(isolated_home, questions, redis_url, "--protocol", "ask")
        gaps = gaps_by_site(one_site, since)
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    pids = {json.loads((Path(r["run_dir"]) / "run.json").read_text())["pid"] for r in rows}
    assert len(pids) == 2
    (site_gaps,) = gaps.values()
    assert len(site_gaps) >= 4 and min(site_gaps) >= 1.0, site_gaps


def test_a_worker_killed_mid_run_has_its_job_redelivered_and_resumed(
    lab: Lab, isolated_home: Path, redis_url: str, workers: Start, tmp_path: Path,
) -> None:  # fmt: skip
    from assay.queue.messages import batch_id, queue_files

    first, _second = workers(2, 1, env=lab_env(lab))
    questions = tmp_path / "q.jsonl"
    questions.write_text(json.dumps({"id": "k", "question": "What is the Halvorsen Lighthouse?",
                                     "sources": 6}) + "\n")  # fmt: skip
    submitter = subprocess.Popen(
        [sys.executable, "-m", "assay.cli", "batch", str(questions), "--broker", redis_url,
         "--quiet", "--home", str(isolated_home)],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    # The workers journal the batch under their own run store, not where the message says.
    journal = queue_files(isolated_home, batch_id(questions.with_name("q.results.jsonl"))).journal
    run_dir = wait_for(lambda: _run_dir(isolated_home, journal))
    log = run_dir / "run.log.jsonl"
    wait_for(lambda: '"tool.open_url"' in log.read_text() or None)
    pid = json.loads((run_dir / "run.json").read_text())["pid"]
    ledger = run_dir / "claims.jsonl"
    claims_before = ledger.read_text() if ledger.exists() else ""
    os.kill(pid, signal.SIGKILL)
    assert submitter.wait(120) == 0
    row = json.loads(questions.with_name("q.results.jsonl").read_text().splitlines()[-1])
    assert row["status"] == "done" and row["run_id"] == run_dir.name and row["resumed"]
    events = [json.loads(line) for line in log.read_text().splitlines()]
    starts = [e["data"].get("resumed", False) for e in events if e["type"] == "run.started"]
    assert starts == [False, True]
    opened = Counter(e["data"]["url"] for e in events if e["type"] == "tool.open_url")
    assert opened and max(opened.values()) == 1, opened  # no page fetched twice
    after = {c["id"]: c["text"] for c in map(json.loads, ledger.read_text().splitlines())}
    before = {c["id"]: c["text"] for c in map(json.loads, claims_before.splitlines())}
    assert before.items() <= after.items()  # no claim lost (statuses may have moved on)
    assert json.loads((run_dir / "run.json").read_text())["pid"] != pid
    assert first.pid == pid or _second.pid == pid


def _run_dir(home: Path, journal: Path) -> Path | None:
    if not journal.is_file() or not journal.read_text().strip():
        return None
    run_id = json.loads(journal.read_text().splitlines()[0])["run_id"]
    return home / "runs" / run_id
