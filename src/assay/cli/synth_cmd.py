"""``assay synth``: the search-synth panel.

Exit codes: 0 [DONE], 5 [MISMATCH], 6 [INCOMPLETE], 7 [BLOCK] (and assay's usual codes
for other errors).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from assay.cli.options import CommonOptions, with_common_options
from assay.cli.output import console, err_console, plain, print_json, shown
from assay.errors import BadInputError

if TYPE_CHECKING:
    from assay.protocols.synth import SynthResult


def _print(result: SynthResult) -> None:
    reason = (result.reason or "").removeprefix(result.signal).strip()
    console.print(
        f"[bold]{shown(result.signal)}[/] {shown(reason)}", highlight=False, soft_wrap=True
    )
    searchers = ", ".join(result.searchers) or "none"
    chief = result.chief_author or "none"
    console.print(plain(f"searchers: {searchers}; chief author: {chief}"), markup=False)
    for pair, counts in result.matrix.items():
        tally = ", ".join(f"{n} {v}" for v, n in counts.items())
        console.print(plain(f"  {pair}: {tally}"), markup=False)
    for where, why in result.blocked.items():
        err_console.print(plain(f"[BLOCK] {where}: {why}"), markup=False)
    console.print(plain(f"output: {result.output}"), markup=False, highlight=False, soft_wrap=True)


@with_common_options
def synth(
    topic: Annotated[str, typer.Argument(help="The research question or subject.")],
    output: Annotated[Path, typer.Option("--output", "-o", help="Where the synthesis goes.")],
    roster: Annotated[
        Path | None, typer.Option("--roster", help="The roster: a YAML or TOML file.")
    ] = None,
    agent: Annotated[
        list[str] | None,
        typer.Option(
            "--agent",
            metavar="KEY=VALUE,...",
            help="Instead of --roster: one agent, keys as in a roster file (repeatable; "
            "see the example above).",
        ),
    ] = None,
    chief_author: Annotated[
        str | None, typer.Option("--chief-author", help="With --agent: the chief author.")
    ] = None,
    poke_after: Annotated[
        float,
        typer.Option("--poke-after", min=0.01, help="Seconds before a silent agent is poked."),
    ] = 60.0,
    block_after: Annotated[
        float, typer.Option("--block-after", min=0.01, help="Seconds before it is [BLOCK]ed.")
    ] = 120.0,
    *,
    options: CommonOptions,
) -> None:
    """Run a search-synth panel of agents that research and fact-check each other.

    Searchers research in parallel and fact-check each other, and the chief author writes
    the Best and Verified response. Without --roster or --agent the default roster is
    built from what is configured (printed; pre-flight decides).

    Example: assay synth "Why do rivers meander?" -o out.md --chief-author A
    --agent name=CC,role=MANAGER
    --agent name=A,role=SEARCHER,can_search=true,search_tool=local
    --agent name=B,role=SEARCHER,can_search=true,search_tool=local

    Exit 0 [DONE], 5 [MISMATCH], 6 [INCOMPLETE], 7 [BLOCK]."""
    import asyncio

    from assay.cli.progress import progress
    from assay.protocols.contract import RunEnv
    from assay.protocols.registry import run_protocol
    from assay.protocols.synth import Timeouts, roster_from_flags

    settings = options.settings()
    if roster is not None and agent:
        raise BadInputError("give either --roster FILE or --agent ... (not both)")
    chosen = roster if roster is not None or not agent else roster_from_flags(agent, chief_author)
    if block_after < poke_after:
        raise BadInputError("--block-after must not be less than --poke-after")
    fields = {"topic": topic, "roster": chosen, "output": output,
              "timeouts": Timeouts(poke_after, block_after)}  # fmt: skip

    def echo(line: str) -> None:
        err_console.print(plain(line), markup=False, highlight=False)

    with progress(not (options.quiet or options.json)) as listener:
        env = RunEnv(settings, listener, echo=echo)
        result = asyncio.run(run_protocol("synth", fields, env)).detail
    if options.json:
        print_json(result.to_json())
    else:
        _print(result)
    if result.exit_code:
        raise typer.Exit(result.exit_code)
