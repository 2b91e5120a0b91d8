"""What ``assay runs`` and ``assay show`` print: the run store as tables and timelines."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from rich.table import Table

from assay.cli.options import CommonOptions
from assay.cli.output import console, err_console, plain, print_json, shown
from assay.cli.runs_table import runs_table
from assay.events import RunFinished
from assay.store.eventlog import LOG_FILE, typed_events
from assay.store.runs import Run, RunStore
from assay.store.summary import run_summary
from assay.timeline import describe

_LEVEL_STYLE = {"info": "", "good": "green", "warn": "yellow", "bad": "red", "dim": "dim"}


def _store(home: Path | None) -> RunStore:
    settings = CommonOptions(home=home).settings()
    return RunStore(settings.home, fsync=settings.fsync == "always")


def list_runs(home: Path | None, as_json: bool) -> None:
    """``assay runs``: one row per run, or their summaries as JSON."""
    store = _store(home)
    rows = [run_summary(store, info) for info in store.list()]
    if as_json:
        print_json(rows)
        return
    if not rows:
        console.print(f"no runs yet in {store.root}")
        return
    console.print(runs_table(rows, console))


def show_run(run_id: str, home: Path | None, *, as_json: bool, follow: bool) -> None:
    """``assay show``: the run's timeline, then its verdict matrix or directions."""
    store = _store(home)
    run = store.open(run_id)
    read = run.events.read()
    if as_json:
        print_json(
            {
                "run": run.info.model_dump(mode="json"),
                "events": read.records,
                "problems": read.problems,
            }
        )
        return
    console.print(
        f"[bold]{shown(run.info.topic)}[/]  ({shown(run.info.protocol)},"
        f" {run.info.effective_status()})  {shown(run.id)}"
    )
    last_seq = _print_records(read.records, -1)
    if follow:
        _follow(run, last_seq)
    if run.info.protocol == "synth":
        _print_verdict_matrix(run)
    if run.info.protocol == "deep":
        from assay.cli.deep_cmd import print_directions  # the deep protocol is heavy

        print_directions(run)
    for problem in run.events.read().problems:
        err_console.print(f"[yellow]warning:[/] {LOG_FILE}: {problem}")


def _print_verdict_matrix(run: Run) -> None:
    from assay.protocols.synth.matrix import VERDICTS, load_panel

    checks = load_panel(run.dir).checks
    if not checks:
        return
    table = Table("checker → author", *VERDICTS, "blocked", title="verdict matrix")
    for check in checks:
        counts = [str(check.counts[v]) for v in VERDICTS]
        pair = shown(f"{check.checker} → {check.author}")
        table.add_row(pair, *counts, shown(check.blocked or ""))
    console.print(table)


def _print_records(records: list[dict[str, Any]], after_seq: int) -> int:
    last = after_seq
    for record in records:
        entry = describe(record)
        if entry.seq <= after_seq and entry.seq >= 0:
            continue
        style = _LEVEL_STYLE[entry.level]
        clock = entry.ts[11:19]
        console.print(f"[dim]{clock}[/] [bold]{shown(entry.kind):<15}[/] ", end="")
        console.print(plain(entry.text), style=style, markup=False)
        last = max(last, entry.seq)
    return last


def _follow(run: Run, last_seq: int, poll: float = 0.5) -> None:
    while True:
        records = run.events.read().records
        last_seq = _print_records(records, last_seq)
        if any(isinstance(e, RunFinished) for e in typed_events(records)):
            return
        info = RunStore(run.dir.parent.parent).open(run.id).info
        if info.effective_status() != "running":
            return
        time.sleep(poll)
