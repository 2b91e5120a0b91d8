"""``assay runs`` and ``assay show``: the run store as tables and timelines.

The rendering lives in ``assay.cli.run_views``, imported when a command runs.
"""

from __future__ import annotations

from typing import Annotated

import typer

from assay.cli.options import HomeOpt, JsonOpt


def runs(home: HomeOpt = None, as_json: JsonOpt = False) -> None:
    """List runs: id, start, topic, protocol, status, claims verified/total, duration."""
    from assay.cli.run_views import list_runs

    list_runs(home, as_json)


def show(
    run_id: Annotated[str, typer.Argument(help="A run id, or a unique prefix of one.")],
    home: HomeOpt = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the raw events as JSON.")] = False,
    follow: Annotated[
        bool, typer.Option("--follow", "-f", help="Keep showing new events.")
    ] = False,
) -> None:
    """Show a run's timeline from its event log."""
    from assay.cli.run_views import show_run

    show_run(run_id, home, as_json=as_json, follow=follow)
