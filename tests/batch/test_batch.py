"""``assay batch`` over the lab with the extractive engine: rows, bad lines, resume, pacing."""

from __future__ import annotations

import asyncio
import itertools
import json
import time
from collections import defaultdict
from pathlib import Path

import pytest
from typer.testing import CliRunner

from assay.batch import BatchFiles, BatchSpec, read_jobs, run_batch
from assay.batch.driver import pending
from assay.cli import app
from assay.config import load_settings
from assay.lab import Lab
from assay.store.runs import RunStore
from assay.store.sources import SourceLedger

runner = CliRunner()
QUESTIONS = [
    {"id": "lighthouse", "question": "When was the Halvorsen Lighthouse completed?"},
    {"id": "volcano", "question": "When did Mount Oskar last erupt?"},
    {"id": "bees", "question": "Who first described the Velmar honeybee?"},
]


def lab_flags(lab: Lab, home: Path) -> list[str]:
    return ["--home", str(home), "--search", "searxng", "--searxng-url", lab.sites[0],
            "--allow-host", "127.0.0.0/8"]  # fmt: skip


def write_questions(path: Path, extra_lines: list[str] = ()) -> Path:  # type: ignore[assignment]
    lines = [json.dumps(q) for q in QUESTIONS] + list(extra_lines)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_read_jobs_names_each_bad_line_and_keeps_the_good_ones(tmp_path: Path) -> None:
    path = write_questions(
        tmp_path / "q.jsonl",
        ["{not json", '["a list"]', '{"id": "x"}', '{"id": "bees", "question": "again?"}'],
    )
    jobs, bad = read_jobs(path)
    assert [j.id for j in jobs] == ["lighthouse", "volcano", "bees"]
    assert [(b.line, b.message.split(" ")[0]) for b in bad] == [
        (4, "not"), (5, "expected"), (6, "question:"), (7, "id"),
    ]  # fmt: skip
    assert bad[3].describe(path) == f"{path}:7: id 'bees' already used on line 3"


@pytest.mark.slow
@pytest.mark.paced  # it proves the 1 s per site across the batch's concurrent runs
def test_batch_cli_runs_every_question_and_reports_bad_lines(lab: Lab, tmp_path: Path) -> None:
    home = tmp_path / "home"
    path = write_questions(tmp_path / "q.jsonl", ["oops"])
    started = time.monotonic()
    result = runner.invoke(
        app, ["batch", str(path), "--concurrency", "3", "--quiet", *lab_flags(lab, home)]
    )
    assert result.exit_code == 1, result.output  # the bad line
    assert f"{path}:4: not JSON" in result.output
    rows = [json.loads(line) for line in (tmp_path / "q.results.jsonl").read_text().splitlines()]
    assert sorted(r["id"] for r in rows) == ["bees", "lighthouse", "volcano"]
    by_id = {r["id"]: r for r in rows}
    assert all(r["status"] == "done" and r["run_id"] for r in rows), [
        (r["status"], r.get("reason")) for r in rows
    ]
    assert "1874" in by_id["lighthouse"]["answer"]
    assert sum(by_id["volcano"]["claims"].values()) > 0
    store = RunStore(home)
    assert {store.open(r["run_id"]).info.topic for r in rows} == {q["question"] for q in QUESTIONS}
    for row in rows:  # every saved source was a page fetched (was always 0)
        fetched = len(SourceLedger(Path(row["run_dir"])).records())
        assert row["usage"]["fetches"] >= fetched > 0, row["usage"]
    # Three runs at once, one process: each lab site still saw ≥ 1 s between our requests.
    by_site: dict[str, list[float]] = defaultdict(list)
    for site, target, at in lab.hits():
        if at >= started and not target.startswith("/search"):
            by_site[site].append(at)
    assert by_site
    for times in by_site.values():
        assert all(b - a >= 1.0 for a, b in itertools.pairwise(times)), times
    # A re-run skips what is done.
    again = runner.invoke(app, ["batch", str(path), "--quiet", *lab_flags(lab, home)])
    assert "3 question(s) already done" in again.output
    assert len((tmp_path / "q.results.jsonl").read_text().splitlines()) == 3


def test_an_interrupted_question_resumes_its_own_run(lab: Lab, tmp_path: Path) -> None:
    settings = load_settings(
        home=tmp_path / "home", search="searxng", searxng_url=lab.sites[0],
        allow_hosts=["127.0.0.0/8"],
    )  # fmt: skip
    jobs, _ = read_jobs(write_questions(tmp_path / "q.jsonl"))
    files = BatchFiles(tmp_path / "out.jsonl")
    spec = BatchSpec(protocol="research", settings=settings)
    first = asyncio.run(run_batch(jobs[:1], spec, files, concurrency=1))
    run = RunStore(settings.home).open(str(first[0].run_id))
    # As if the process had been killed before the run ended: no result row, status running.
    files.results.write_text("", encoding="utf-8")
    run.info.status = "interrupted"
    run.save_info()
    sources_before = (run.dir / "sources.jsonl").read_text()
    assert [j.id for j in pending(jobs, files)] == [j.id for j in jobs]
    again = asyncio.run(run_batch(jobs[:1], spec, files, concurrency=1))
    assert again[0].resumed and again[0].run_id == run.id and again[0].status == "done"
    assert (run.dir / "sources.jsonl").read_text().startswith(sources_before)
    events = [json.loads(line) for line in (run.dir / "run.log.jsonl").read_text().splitlines()]
    assert [e["data"].get("resumed") for e in events if e["type"] == "run.started"] == [
        False, True,
    ]  # fmt: skip


def test_a_failed_question_gets_a_failed_row_and_the_others_go_on(tmp_path: Path) -> None:
    settings = load_settings(home=tmp_path / "home", search="searxng")  # no SearxNG URL given
    jobs, _ = read_jobs(write_questions(tmp_path / "q.jsonl"))
    files = BatchFiles(tmp_path / "out.jsonl")
    rows = asyncio.run(run_batch(jobs, BatchSpec("ask", settings), files, concurrency=2))
    assert [r.status for r in rows] == ["failed"] * 3
    assert all(r.reason for r in rows)
    assert len(files.rows()) == 3 and not files.finished_ids()


@pytest.mark.parametrize("protocol", ["web-research", "check"])
def test_other_protocols_run_through_batch(lab: Lab, tmp_path: Path, protocol: str) -> None:
    settings = load_settings(
        home=tmp_path / "home", search="searxng", searxng_url=lab.sites[0],
        allow_hosts=["127.0.0.0/8"],
    )  # fmt: skip
    path = tmp_path / "q.jsonl"
    line = {"id": "c1", "question": "The Halvorsen Lighthouse was completed in 1874."}
    if protocol == "web-research":
        line |= {"depth": "shallow", "keywords": ["Halvorsen Lighthouse"]}
    path.write_text(json.dumps(line) + "\n")
    jobs, _ = read_jobs(path)
    rows = asyncio.run(
        run_batch(jobs, BatchSpec(protocol, settings), BatchFiles(tmp_path / "o.jsonl"))
    )
    assert rows[0].status == "done", rows[0].reason
    assert (rows[0].protocol == protocol and rows[0].report is not None) or protocol == "check"
    if protocol == "check":
        assert rows[0].answer == "supported"


def test_cli_start_up_loads_no_queue_or_plotting_library() -> None:
    import subprocess
    import sys

    probe = ("import sys, assay.cli.app; print(sorted(m for m in ('matplotlib', 'dramatiq', "
             "'redis', 'assay.batch', 'assay.evaluation') if m in sys.modules))")  # fmt: skip
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"


def test_the_display_counts_done_failed_running_and_tokens(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from assay.batch import BatchJob, ResultRow
    from assay.cli.batch_display import BatchDisplay
    from assay.events import Usage

    display = BatchDisplay(2, live=False)
    events = display.events()
    for job_id in ("a", "b"):
        events.started[0](BatchJob(id=job_id, question="?"))
    events.event[0]("a", Usage(model="m", input_tokens=30, output_tokens=12))
    events.ended[0](ResultRow(id="a", status="done", answer="1874", wall_seconds=1.5))
    events.ended[0](ResultRow(id="b", status="failed", reason="no search", wall_seconds=0.2))
    assert (display.done, display.failed, display.running, display.tokens) == (1, 1, 0, 42)
    lines = capsys.readouterr().err.splitlines()
    assert lines == ["[1/2] a: done in 1.5s — 1874",
                     "[2/2] b: failed (no search) in 0.2s — (no answer)"]  # fmt: skip


@pytest.mark.parametrize("command", ["worker", "batch"])
def test_on_a_broker_a_missing_key_or_an_unreachable_broker_is_one_line(
    command: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import subprocess
    import sys

    from tests.queue_fixtures import TEST_QUEUE_KEY, free_port

    url = f"redis://127.0.0.1:{free_port()}/0"  # nothing listens there
    argv = ["worker"] if command == "worker" else ["batch", str(write_questions(tmp_path / "q"))]

    def error_line(code: int) -> str:
        done = subprocess.run(
            [sys.executable, "-m", "assay.cli", *argv, "--broker", url],
            capture_output=True, text=True, timeout=60, check=False,
        )  # fmt: skip
        lines = done.stderr.strip().splitlines()
        assert done.returncode == code and len(lines) == 1, done.stderr
        return lines[0]

    assert "ASSAY_QUEUE_KEY" in error_line(2)  # checked before the broker is reached
    monkeypatch.setenv("ASSAY_QUEUE_KEY", TEST_QUEUE_KEY)
    assert "cannot reach the broker at 127.0.0.1:" in error_line(8)  # may work later as it is
