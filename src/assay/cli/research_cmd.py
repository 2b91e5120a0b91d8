"""``assay research``, ``assay ask`` and ``assay resume``."""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from assay.cli.deep_cmd import resume_deep
from assay.cli.options import CommonOptions, with_common_options
from assay.cli.output import console, err_console, print_json, shown
from assay.errors import BudgetExhausted

if TYPE_CHECKING:
    from assay.protocols.contract import ProtocolResult
    from assay.protocols.research import ResearchResult
    from assay.store.eventlog import Listener

TopicArg = Annotated[str, typer.Argument(help="The question or topic.")]


def _report(result: ResearchResult, as_json: bool) -> None:
    if as_json:
        print_json(result.to_json())
        return
    if result.escalated_from:
        err_console.print("the question needed full research: it went on in the same run")
    console.print(f"[bold]Answer:[/] {shown(result.answer or '(none found)')}", highlight=False)
    counts = ", ".join(f"{n} {s}" for s, n in result.claims.items() if n) or "no claims"
    console.print(f"claims: {counts}; sources: {len(result.sources)}; engine: {result.engine}")
    console.print(f"report: {result.report}", markup=False, highlight=False, soft_wrap=True)


def _drive(
    options: CommonOptions,
    start: Callable[[Listener | None], Coroutine[Any, Any, ProtocolResult]],
) -> None:
    import asyncio

    from assay.cli.progress import progress

    try:
        with progress(not (options.quiet or options.json)) as listener:
            result = asyncio.run(start(listener))
    except BudgetExhausted as exc:
        if exc.report:
            err_console.print(f"partial report: {exc.report}", soft_wrap=True)
        raise
    _report(result.detail, options.json)


@with_common_options
def research(
    topic: TopicArg,
    workspace: Annotated[
        Path | None,
        typer.Option("--workspace", help="Code-agent mode: research this folder, not the web."),
    ] = None,
    sources: Annotated[int, typer.Option("--sources", min=1, max=20, help="Sources to read.")] = 5,
    *,
    options: CommonOptions,
) -> None:
    """Research a topic: plan, gather, extract claims, verify, and write a cited report."""
    _drive(options, _starting(options, "research", topic, workspace=workspace, sources=sources))


@with_common_options
def ask(
    question: TopicArg,
    options: CommonOptions,
) -> None:
    """Answer one question directly; research-grade questions escalate to a full run."""
    _drive(options, _starting(options, "ask", question))


@with_common_options
def resume(
    run_id: Annotated[str, typer.Argument(help="The interrupted run (a unique id prefix).")],
    options: CommonOptions,
) -> None:
    """Continue an interrupted run from its files, without repeating recorded work.

    The run goes on with the search, model and fetch settings it started with; a flag
    given here wins."""
    from assay.protocols.contract import RunEnv
    from assay.protocols.launch import RESUMED_SETTINGS
    from assay.protocols.registry import resume_protocol
    from assay.store.runs import RunStore

    info = RunStore(options.settings().home).open(run_id).info
    recorded = info.config
    settings = options.settings({k: recorded[k] for k in RESUMED_SETTINGS if k in recorded})
    if info.protocol == "deep":
        resume_deep(run_id, options, settings)
        return
    if info.protocol not in ("research", "ask"):
        from assay.cli.run_cmd import drive_any

        drive_any(options, lambda env: resume_protocol(info.protocol, run_id, env), settings)
        return
    _drive(
        options,
        lambda listener: resume_protocol(info.protocol, run_id, RunEnv(settings, listener)),
    )


def _starting(
    options: CommonOptions, protocol: str, topic: str, **fields: Any
) -> Callable[[Listener | None], Coroutine[Any, Any, ProtocolResult]]:
    """A start of ``protocol`` on ``topic`` through the registry, for ``_drive``."""
    from assay.protocols.contract import RunEnv
    from assay.protocols.registry import run_protocol

    settings = options.settings()

    def start(listener: Listener | None) -> Coroutine[Any, Any, ProtocolResult]:
        return run_protocol(protocol, {"topic": topic, **fields}, RunEnv(settings, listener))

    return start
