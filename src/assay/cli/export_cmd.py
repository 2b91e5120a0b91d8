"""``assay export``: a run's report as Markdown, JSON, self-contained HTML or PDF."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from assay.cli.options import CommonOptions, HomeOpt
from assay.cli.output import console


def export(
    run_id: Annotated[str, typer.Argument(help="A run id, or a unique prefix of one.")],
    fmt: Annotated[str, typer.Option("--format", "-f", help="html, md, json or pdf.")] = "html",
    output: Annotated[
        Path | None,
        typer.Option("--output", "-o", help="Where to write it (default: RUN-ID.FORMAT here)."),
    ] = None,
    home: HomeOpt = None,
) -> None:
    """Export a run's report; the HTML page shows each claim's quotes on hover, offline."""
    from assay.report.export import default_export_path, export_bytes, parse_format
    from assay.store.runs import RunStore

    chosen = parse_format(fmt)
    settings = CommonOptions(home=home).settings()
    run = RunStore(settings.home, fsync=settings.fsync == "always").open(run_id)
    data = export_bytes(run, chosen)
    target = output or default_export_path(run, chosen)
    target.write_bytes(data)
    console.print(f"wrote {target}", markup=False, highlight=False, soft_wrap=True)
