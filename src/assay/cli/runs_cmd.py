"""``assay runs`` and ``assay show``: the run store as tables and timelines."""

from __future__ import annotations

import time
from typing import Annotated, Any

import typer
from rich.table import Table

from assay.cli.deep_cmd import print_directions
from assay.cli.options import CommonOptions, HomeOpt, JsonOpt
from assay.cli.output import console, err_console, plain, print_json, shown
from assay.protocols.synth.matrix import VERDICTS, parse_fact_checks
from assay.store.runs import REPORT_FILE, Run, RunStore
from assay.store.summary import run_summary
from assay.timeline import describe

_LEVEL_STYLE = {"info": "", "good": "green", "warn": "yellow", "bad": "red", "dim": "dim"}


def _store(home: HomeOpt) -> RunStore:
    settings = CommonOptions(home=home).settings()
    return RunStore(settings.home, fsync=settings.fsync == "always")


def runs(home: HomeOpt = None, as_json: JsonOpt = False) -> None:
    """List runs: id, start, topic, protocol, status, claims verified/total, duration."""
    store = _store(home)
    rows = [run_summary(store, info) for info in store.list()]
    if as_json:
        print_json(rows)
        return
    if not rows:
        console.print(f"no runs yet in {store.root}")
        return
    table = Table("started", "topic", "protocol", "status", "claims", "duration")
    table.add_column("id", no_wrap=True)
    for row in rows:
        duration = row["duration_s"]
        table.add_row(
            row["started"][:19].replace("T", " "),
            shown(row["topic"][:50]),
            shown(row["protocol"]),
            row["status"],
            f"{row['claims_verified']}/{row['claims_total']}",
            "-" if duration is None else f"{duration:.1f}s",
            shown(row["id"]),
        )
    console.print(table)


def show(
    run_id: Annotated[str, typer.Argument(help="A run id, or a unique prefix of one.")],
    home: HomeOpt = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the raw events as JSON.")] = False,
    follow: Annotated[
        bool, typer.Option("--follow", "-f", help="Keep showing new events.")
    ] = False,
) -> None:
    """Show a run's timeline from its event log."""
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
        print_directions(run)
    for problem in run.events.read().problems:
        err_console.print(f"[yellow]warning:[/] run.log.jsonl: {problem}")


def _print_verdict_matrix(run: Run) -> None:
    report = run.dir / REPORT_FILE
    checks = parse_fact_checks(report.read_text(encoding="utf-8")) if report.is_file() else []
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
        if any(r.get("type") == "run.finished" for r in records):
            return
        info = RunStore(run.dir.parent.parent).open(run.id).info
        if info.effective_status() != "running":
            return
        time.sleep(poll)
