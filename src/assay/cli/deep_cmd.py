"""``assay deep``: multi-directional deep research with scored directions."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Annotated

import typer

from assay.cli.options import CommonOptions, with_common_options
from assay.cli.output import console, err_console, plain, print_json
from assay.protocols.deep import deep_research_async


@with_common_options
def deep(
    topic: Annotated[str, typer.Argument(help="The topic to research in depth.")],
    max_directions: Annotated[
        int, typer.Option("--max-directions", min=1, max=6, help="Research directions (1–6).")
    ] = 6,
    output: Annotated[
        Path | None,
        typer.Option("--output", help="Folder for research_<topic>_<date>.md (default: here)."),
    ] = None,
    *,
    options: CommonOptions,
) -> None:
    """Deep research: detect search, plan directions, run scored workers, escalate weak
    directions, and write a cited report with findings, gaps and a bibliography."""
    settings = options.settings()

    def echo(line: str) -> None:
        if options.json:
            if not options.quiet:
                err_console.print(plain(line), markup=False, highlight=False, soft_wrap=True)
        else:
            console.print(plain(line), markup=False, highlight=False, soft_wrap=True)

    result = asyncio.run(
        deep_research_async(
            topic, settings=settings, max_directions=max_directions, output=output, echo=echo
        )
    )
    if options.json:
        print_json(result.to_json())
