"""``assay deep``: multi-directional deep research with scored directions; ``resume`` of a
deep run and the directions table ``assay show`` prints come from here too."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from assay.cli.options import CommonOptions, with_common_options
from assay.cli.output import console, err_console, plain, print_json, shown

if TYPE_CHECKING:
    from assay.config import Settings
    from assay.protocols.deep import DeepResult
    from assay.protocols.deep.protocol import Echo
    from assay.store.runs import Run


def _echo(options: CommonOptions) -> Echo:
    def echo(line: str) -> None:
        if options.json:
            if not options.quiet:
                err_console.print(plain(line), markup=False, highlight=False, soft_wrap=True)
        else:
            console.print(plain(line), markup=False, highlight=False, soft_wrap=True)

    return echo


def _finish(result: DeepResult, options: CommonOptions) -> None:
    if options.json:
        print_json(result.to_json())


@with_common_options
def deep(
    topic: Annotated[str, typer.Argument(help="The topic to research in depth.")],
    max_directions: Annotated[
        int, typer.Option("--max-directions", min=1, max=6, help="Research directions (1–6).")
    ] = 6,
    output: Annotated[
        Path | None,
        typer.Option(
            "--output",
            help="A folder for a copy of research_<topic>_<date>.md (it is always saved in "
            "the run directory).",
        ),
    ] = None,
    *,
    options: CommonOptions,
) -> None:
    """Deep research: detect search, plan directions, run scored workers, escalate weak
    directions, and write a cited report with findings, gaps and a bibliography."""
    import asyncio

    from assay.protocols.contract import RunEnv
    from assay.protocols.registry import run_protocol

    env = RunEnv(options.settings(), echo=_echo(options))
    fields = {"topic": topic, "max_directions": max_directions, "output": output}
    _finish(asyncio.run(run_protocol("deep", fields, env)).detail, options)


def resume_deep(run_id: str, options: CommonOptions, settings: Settings) -> None:
    """``assay resume`` of a deep run: it goes on at its first direction without a review,
    with ``settings`` (the run's own recorded ones, a flag given here winning)."""
    import asyncio

    from assay.protocols.contract import RunEnv
    from assay.protocols.registry import resume_protocol

    env = RunEnv(settings, echo=_echo(options))
    _finish(asyncio.run(resume_protocol("deep", run_id, env)).detail, options)


def print_directions(run: Run) -> None:
    """The directions table of ``assay show``: scores, escalations and failed checks."""
    from rich.table import Table

    from assay.protocols.deep.findings import FindingsStore

    reviews = FindingsStore(run.dir).reviews()
    if not reviews:
        return
    table = Table("#", "direction", "score", "first score", "escalated", "outcome",
                  "failed checks", title="directions")  # fmt: skip
    for r in reviews:
        outcome = "crashed" if r.crashed else ("insufficient data" if r.insufficient else "ok")
        failed = ", ".join(name for name, passed in r.checks.items() if not passed)
        table.add_row(
            str(r.number), shown(r.name), f"{r.score or 0:.1f}",
            f"{r.first_score:.1f}" if r.first_score is not None else "",
            "yes" if r.escalated else "no", outcome, failed or "none",
        )  # fmt: skip
    console.print(table)
