"""``assay verify``: re-check a whole run from its files; ``--rejudge`` adds a judge."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

import typer

from assay.cli.options import BaseUrlOpt, CommonOptions, HomeOpt, JsonOpt, ModelOpt
from assay.cli.output import console, err_console, print_json, shown
from assay.errors import IntegrityError

if TYPE_CHECKING:
    from assay.claims.recheck import RecheckReport
    from assay.config import Settings
    from assay.keys import KeyStore

_MARK = {True: "[green]✓[/]", False: "[red]✗[/]"}
RejudgeOpt = Annotated[
    bool,
    typer.Option(
        "--rejudge",
        help="Also judge each claim's text against its own quotes (the extractive judge, "
        "or --model) and fail claims their quotes do not support.",
    ),
]


def verify(
    run_id: Annotated[str, typer.Argument(help="A run id, or a unique prefix of one.")],
    rejudge_claims: RejudgeOpt = False,
    model: ModelOpt = None,
    base_url: BaseUrlOpt = None,
    home: HomeOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Re-check the whole run: every snapshot, quote, number, origin and status, the
    report's markers and URLs, and the hash chain over its records; exit 4 naming each
    failure."""
    import asyncio

    from assay.claims.recheck import recheck_run
    from assay.keys import KeyStore
    from assay.store.runs import RunStore

    settings = CommonOptions(home=home, model=model, base_url=base_url).settings()
    keys = KeyStore(settings.home, settings.keys)
    secrets = frozenset(keys.known_secret_values())
    run = RunStore(settings.home, fsync=settings.fsync == "always", secrets=secrets).open(run_id)
    result = recheck_run(run.dir)
    if rejudge_claims:
        asyncio.run(_rejudge(result, settings, keys))
    result.record(run.events)
    if as_json:
        print_json(result.to_json(run.id))
    else:
        _print(result)
    if not result.ok:
        raise IntegrityError(
            f"{run.id}: {len(result.failures)} check(s) failed; first: {result.failures[0]}"
        )
    if not as_json:
        console.print(
            f"{shown(run.id)}: every claim presented as verified holds, and every status, "
            f"source and report version matches the files ({len(result.claims)} claims)"
        )


async def _rejudge(result: RecheckReport, settings: Settings, keys: KeyStore) -> None:
    from assay.claims.recheck import rejudge
    from assay.engines.select import build_judge
    from assay.models.registry import model_from_settings

    model = model_from_settings(settings, keys)
    try:
        await rejudge(result, build_judge(model, budget=None, meter=None))
    finally:
        if model is not None:
            await model.aclose()


def _print(result: RecheckReport) -> None:
    from rich.table import Table

    table = Table("claim", "recorded", "report", "re-derived", "checks", "reason")
    for item in result.claims:
        checks = " ".join(f"{_MARK[c.passed]}{c.name}" for c in item.checks)
        table.add_row(
            shown(item.claim_id),
            shown(item.recorded),
            shown(item.presented or "-"),
            shown(item.rederived),
            shown(checks),
            shown(item.reason),
            style="red" if item.failed else "",
        )
    console.print(table)
    for warning in result.warnings:
        err_console.print(f"[yellow]warning:[/] {shown(warning)}", highlight=False)
    for failure in result.failures:
        err_console.print(f"[red]fail:[/] {shown(failure)}", highlight=False)
