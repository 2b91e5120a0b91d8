"""The research agent (``assay research``), the one-shot agent (``assay ask``) and resume.

``research_async`` runs the full five-phase loop; ``ask_async`` answers directly with a
lighter toolset and, when the question is research-grade (``requestFullResearch``), the
research agent takes over with a fresh harness in the same run (agent-loop.txt: one run,
one lifecycle — the ask's searches and claims stay in it, it ends with one
``run.finished``; run.json says ``protocol: research`` and ``escalated: <reason>``);
``resume_async`` continues an interrupted run from its files.
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
    escalated: list[str] = []

    async def body() -> str:  # built inside execute, so a failure here still ends the run
        policy = _policy(context)
        harness = ResearchHarness(
            context, policy, mode=mode, target_sources=sources, workspace=workspace
        )
        try:
            return await harness.run_loop()
        except Escalate as escalation:  # the research agent takes over, in this run
            run = context.run
            run.events.emit(FullResearchRequested(reason=escalation.reason, run_id=run.id))
            run.info.protocol = "research"
            setattr(run.info, "escalated", escalation.reason)  # noqa: B010 - a run.json extra
            run.save_info()
            escalated.append(run.id)
            full = ResearchHarness(context, policy, mode="web", target_sources=DEFAULT_SOURCES)
            return await full.run_loop()

    answer = await execute(context, body)
    result = result_of(context, answer)
    result.escalated_from = escalated[0] if escalated else None  # the run began as an ask
    return result


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
    """Answer directly; when the question needs it, full research takes over in the same run."""
    settings = settings or load_settings()
    context = start_run(settings, question, "ask", model=model)
    if listener is not None:
        context.run.events.listeners.append(listener)
    return await _run(context, "ask", ASK_SOURCES, None)


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
