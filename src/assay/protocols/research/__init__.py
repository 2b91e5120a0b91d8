"""The research agent (``assay research``), the one-shot agent (``assay ask``) and resume.

``research_async`` runs the full five-phase loop; ``ask_async`` answers directly with a
lighter toolset and hands over to a fresh full run when the question is research-grade
(``requestFullResearch``); ``resume_async`` continues an interrupted run from its files.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from assay.blocking import blocking
from assay.config import Settings, load_settings
from assay.events import FullResearchRequested
from assay.models import Model
from assay.protocols.outcome import run_fields
from assay.protocols.research.agent import Escalate, ResearchHarness
from assay.protocols.research.policy import ExtractivePolicy, Mode, ModelPolicy, Policy
from assay.protocols.research.workspace import Workspace
from assay.protocols.runner import RunContext, execute, reopen_run, start_run
from assay.store.eventlog import Listener
from assay.store.runs import REPORT_FILE

DEFAULT_SOURCES = 5
ASK_SOURCES = 2


@dataclass
class ResearchResult:
    """What a research, ask or resume call produced (also the ``--json`` object)."""

    run_id: str
    run_dir: str
    protocol: str
    status: str
    reason: str | None
    report: str | None
    answer: str
    claims: dict[str, int]
    sources: list[dict[str, Any]]
    usage: dict[str, Any]
    engine: str
    model: str | None
    escalated_from: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def _policy(context: RunContext) -> Policy:
    if context.model is None:
        return ExtractivePolicy()
    return ModelPolicy(context.model, budget=context.budget, meter=context.meter)


def result_of(context: RunContext, answer: str) -> ResearchResult:
    run = context.run
    report = run.dir / REPORT_FILE
    return ResearchResult(
        **run_fields(context),
        protocol=run.info.protocol,
        report=str(report) if report.is_file() else None,
        answer=answer,
    )


async def _run(
    context: RunContext, mode: Mode, sources: int, workspace: Workspace | None
) -> ResearchResult:
    async def body() -> str:  # built inside execute, so a failure here still ends the run
        harness = ResearchHarness(
            context, _policy(context), mode=mode, target_sources=sources, workspace=workspace
        )
        return await harness.run_loop()

    answer = await execute(context, body)
    return result_of(context, answer)


async def research_async(
    topic: str,
    *,
    settings: Settings | None = None,
    workspace: Path | None = None,
    sources: int = DEFAULT_SOURCES,
    model: Model | None = None,
    listener: Listener | None = None,
) -> ResearchResult:
    """Run the full research loop on ``topic`` (over ``workspace`` in code-agent mode)."""
    settings = settings or load_settings()
    folder = Workspace.open(workspace) if workspace is not None else None
    extra: dict[str, object] = {"workspace": str(folder.root)} if folder else {}
    context = start_run(settings, topic, "research", model=model, sources=sources, **extra)
    if listener is not None:
        context.run.events.listeners.append(listener)
    return await _run(context, "workspace" if folder else "web", sources, folder)


async def ask_async(
    question: str,
    *,
    settings: Settings | None = None,
    model: Model | None = None,
    listener: Listener | None = None,
) -> ResearchResult:
    """Answer directly; escalate to a fresh full research run when the question needs it."""
    settings = settings or load_settings()
    context = start_run(settings, question, "ask", model=model)
    if listener is not None:
        context.run.events.listeners.append(listener)
    try:
        return await _run(context, "ask", ASK_SOURCES, None)
    except Escalate as escalation:
        full = start_run(settings, question, "research", model=model, escalated_from=context.run.id)
        if listener is not None:
            full.run.events.listeners.append(listener)
        context.run.events.emit(FullResearchRequested(reason=escalation.reason, run_id=full.run.id))
        context.run.finish("done", f"escalated to full research: {full.run.id}")
        result = await _run(full, "web", DEFAULT_SOURCES, None)
        result.escalated_from = context.run.id
        return result


async def resume_async(
    run_id: str,
    *,
    settings: Settings | None = None,
    model: Model | None = None,
    listener: Listener | None = None,
) -> ResearchResult:
    """Continue an interrupted research or ask run from its files."""
    settings = settings or load_settings()
    context = reopen_run(settings, run_id, model=model)
    if listener is not None:
        context.run.events.listeners.append(listener)
    info = context.run.info
    workspace = info.model_extra.get("workspace") if info.model_extra else None
    folder = Workspace.open(Path(workspace)) if workspace else None
    mode: Mode = "workspace" if folder else ("ask" if info.protocol == "ask" else "web")
    recorded = (info.model_extra or {}).get("sources")
    sources = recorded if isinstance(recorded, int) else None
    default = ASK_SOURCES if mode == "ask" else DEFAULT_SOURCES
    return await _run(context, mode, sources or default, folder)


research = blocking(research_async)
ask = blocking(ask_async)
