"""``assay tui``: the Textual interface (the ``tui`` extra), opened on the runs list or a run.

Starting runs from the TUI goes through ``assay.protocols.research.research_async``,
imported when the command runs; without it the TUI still browses and follows runs and
says why it cannot start one.
"""

from __future__ import annotations

import importlib
import inspect
from typing import TYPE_CHECKING, Annotated, Any

import typer

from assay.cli.options import CommonOptions, HomeOpt
from assay.errors import ConfigError

if TYPE_CHECKING:
    from assay.config import Settings

StartRun = Any  # assay.tui.app.StartRun, without importing Textual before the guard


def research_runner(settings: Settings) -> tuple[StartRun | None, str | None]:
    """``start_run(mode, topic) -> run id`` over the research protocol, or None and why not.

    "research" calls ``research_async``; "ask" calls ``ask_async`` (or ``research_async``
    with ``mode="ask"`` where it takes a mode).
    """
    try:
        module = importlib.import_module("assay.protocols.research")
    except ImportError as exc:
        return None, f"starting runs is unavailable: the research protocol is missing ({exc})"
    research_async = getattr(module, "research_async", None)
    ask_async = getattr(module, "ask_async", None)
    if research_async is None:
        return None, "starting runs is unavailable: assay.protocols.research has no research_async"
    takes_mode = "mode" in inspect.signature(research_async).parameters

    async def start_run(mode: str, topic: str) -> str:
        if takes_mode:
            result = await research_async(topic, settings=settings, mode=mode)
        elif mode == "ask" and ask_async is not None:
            result = await ask_async(topic, settings=settings)
        elif mode == "ask":
            raise ConfigError("ask is not available: the research protocol has no ask_async")
        else:
            result = await research_async(topic, settings=settings)
        return str(result.run_id)

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
