"""``assay verify``: re-check a whole run from its files; ``--rejudge`` adds a judge."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

import typer

from assay.cli.options import BaseUrlOpt, CommonOptions, HomeOpt, JsonOpt, ModelOpt
from assay.cli.output import console, err_console, plain, print_json, shown
from assay.errors import IntegrityError

if TYPE_CHECKING:
    from assay.claims.recheck import RecheckReport
    from assay.config import Settings
    from assay.keys import KeyStore

_MARK = {True: ("✓", "green"), False: ("✗", "red")}
_CHECK_WIDTH = 1 + len("numbers_supported")  # the longest check's mark and name
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
    report's markers and URLs, and the hash chain over every file; exit 4 naming each
    failure (a run without a chain, or with a symbolic link in it, fails)."""
    import asyncio

    from assay.claims.recheck import recheck_run
    from assay.keys import KeyStore
    from assay.store.runs import RunStore

    settings = CommonOptions(home=home, model=model, base_url=base_url).settings()
    keys = KeyStore(settings.home, settings.keys)
    secrets = frozenset(keys.known_secret_values())
    store = RunStore(settings.home, fsync=settings.fsync == "always", secrets=secrets)
    directory = store.resolve(run_id)
    run_name = directory.name
    result = recheck_run(directory)  # before run.json is opened: a link in the run is refused
    if rejudge_claims and not result.refused:
        asyncio.run(_rejudge(result, settings, keys))
    if not result.refused:
        result.record(store.open(run_name).events)
    if as_json:
        print_json(result.to_json(run_name))
    else:
        _print(result)
    if not result.ok:
        raise IntegrityError(
            f"{run_name}: {len(result.failures)} check(s) failed; first: {result.failures[0]}"
        )
    if not as_json:
        console.print(
            f"{shown(run_name)}: every claim presented as verified holds, and every status, "
            f"source, event and report version matches the files ({len(result.claims)} claims)"
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
    from rich.text import Text

    # Cells are Text, never markup: a mark is a styled character beside a plain name, so no
    # escaping can turn it into the literal "[green]✓[/]" an earlier version printed. The
    # checks wrap between names (never inside one), the reason under them: at 80 columns
    # all of it reads.
    table = Table(box=None, pad_edge=False, padding=(0, 1), header_style="bold")
    for header in ("claim", "recorded", "report", "re-derived"):
        table.add_column(header, no_wrap=True)
    table.add_column("checks, reason", ratio=1, min_width=_CHECK_WIDTH)
    for item in result.claims:
        marks = Text(" ").join(Text.assemble(_MARK[c.passed], plain(c.name)) for c in item.checks)
        lines = [marks, Text(plain(item.reason), style="dim")] if item.reason else [marks]
        table.add_row(
            *(Text(plain(v)) for v in (item.claim_id, item.recorded, item.presented or "-")),
            Text(plain(item.rederived)),
            Text("\n").join(lines),
            style="red" if item.failed else "",
        )
    console.print(table)
    for warning in result.warnings:
        err_console.print(f"[yellow]warning:[/] {shown(warning)}", highlight=False)
    for failure in result.failures:
        err_console.print(f"[red]fail:[/] {shown(failure)}", highlight=False)
