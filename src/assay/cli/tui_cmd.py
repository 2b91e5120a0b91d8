"""``assay tui``: the Textual interface (the ``tui`` extra), opened on the runs list or a run.

Starting runs from the TUI goes through ``assay.protocols.registry`` (research or ask),
loaded when the command runs; without the research protocol the TUI still browses and
follows runs and says why it cannot start one.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any

import typer

from assay.cli.options import CommonOptions, HomeOpt
from assay.errors import ConfigError

if TYPE_CHECKING:
    from assay.config import Settings

StartRun = Any  # assay.tui.app.StartRun, without importing Textual before the guard


def research_runner(settings: Settings) -> tuple[StartRun | None, str | None]:
    """``start_run(mode, topic) -> run id``: a run of the protocol ``mode`` (research or
    ask) through ``protocols.registry``, or None and why not."""
    from assay.protocols.contract import RunEnv
    from assay.protocols.registry import protocol_spec, run_protocol

    try:
        protocol_spec("research")
    except (ImportError, ConfigError) as exc:
        return None, f"starting runs is unavailable: the research protocol is missing ({exc})"

    async def start_run(mode: str, topic: str) -> str:
        result = await run_protocol(mode, {"topic": topic}, RunEnv(settings))
        return result.run_id

    return start_run, None


def tui(
    run_id: Annotated[
        str | None,
        typer.Argument(help="A run to open (an id or a unique prefix); default: the runs list."),
    ] = None,
    home: HomeOpt = None,
) -> None:
    """Browse runs, start one, and follow a run live: feed, plan, claims, report."""
    try:
        from assay.tui import AssayApp
    except ImportError:
        raise ConfigError("assay tui needs textual: pip install 'assay[tui]'") from None
    from assay.store.runs import RunStore

    settings = CommonOptions(home=home).settings()
    if run_id is not None:
        run_id = RunStore(settings.home).resolve(run_id).name  # an unknown id fails here, exit 2
    start_run, why_not = research_runner(settings)
    AssayApp(settings.home, run_id=run_id, start_run=start_run, start_disabled=why_not).run()
