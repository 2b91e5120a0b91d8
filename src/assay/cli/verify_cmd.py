"""``assay verify``: re-check a run's claims and report from its files, with no model."""

from __future__ import annotations

from typing import Annotated

import typer
from rich.table import Table

from assay.claims.recheck import recheck_run
from assay.cli.options import CommonOptions, HomeOpt, JsonOpt
from assay.cli.output import console, err_console, print_json, shown
from assay.errors import IntegrityError
from assay.events import ClaimVerified
from assay.keys import KeyStore
from assay.store.runs import RunStore

_MARK = {True: "[green]✓[/]", False: "[red]✗[/]"}


def verify(
    run_id: Annotated[str, typer.Argument(help="A run id, or a unique prefix of one.")],
    home: HomeOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Re-check every claim's quotes, snapshots, numbers and origins, and the report's
    markers and URLs; exit 4 when anything presented as verified does not hold."""
    settings = CommonOptions(home=home).settings()
    secrets = frozenset(KeyStore(settings.home, settings.keys).known_secret_values())
    run = RunStore(settings.home, fsync=settings.fsync == "always", secrets=secrets).open(run_id)
    result = recheck_run(run.dir)
    for item in result.claims:
        run.events.emit(
            ClaimVerified(
                id=item.claim_id,
                status=item.rederived,  # type: ignore[arg-type]
                reason=f"assay verify: {item.reason}",
            )
        )
    if as_json:
        print_json(
            {
                "run": run.id,
                "ok": result.ok,
                "failures": result.failures,
                "warnings": result.warnings,
                "claims": [
                    {
                        "id": c.claim_id,
                        "recorded": c.recorded,
                        "presented": c.presented,
                        "rederived": c.rederived,
                        "reason": c.reason,
                        "checks": {k.name: k.to_json() for k in c.checks},
                    }
                    for c in result.claims
                ],
            }
        )
    else:
        table = Table("claim", "recorded", "report", "re-derived", "checks", "reason")
        for item in result.claims:
            checks = " ".join(f"{_MARK[c.passed]}{c.name}" for c in item.checks)
            style = "red" if item.failed else ""
            table.add_row(
                shown(item.claim_id),
                shown(item.recorded),
                shown(item.presented or "-"),
                shown(item.rederived),
                shown(checks),
                shown(item.reason),
                style=style,
            )
        console.print(table)
        for warning in result.warnings:
            err_console.print(f"[yellow]warning:[/] {shown(warning)}")
        for failure in result.failures:
            err_console.print(f"[red]fail:[/] {shown(failure)}", highlight=False)
    if not result.ok:
        raise IntegrityError(
            f"{run.id}: {len(result.failures)} check(s) failed; first: {result.failures[0]}"
        )
    if not as_json:
        count = len(result.claims)
        console.print(f"{shown(run.id)}: every claim presented as verified holds ({count} claims)")
