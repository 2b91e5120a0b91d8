"""The built-in protocols as ``ProtocolSpec``s (registered in pyproject.toml's
``assay.protocols`` group): each maps its request model onto the library's own ``*_async``
call and its result onto a ``ProtocolResult``.

The protocols are imported when a run starts, not when the registry loads a spec.
"""

from __future__ import annotations

import secrets
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from pydantic import ConfigDict, Field

from assay.protocols.contract import ProtocolRequest, ProtocolResult, ProtocolSpec, RunEnv
from assay.protocols.deep.plan import MAX_DIRECTIONS

if TYPE_CHECKING:
    from assay.config import Settings
    from assay.protocols.deep import DeepResult
    from assay.protocols.research import ResearchResult
    from assay.protocols.synth import SynthResult
    from assay.protocols.web_research.results import WebResearchResult


def _path(value: str | Path | None) -> Path | None:
    return Path(value) if value else None


# research, ask and resume ---------------------------------------------------------------


class ResearchRun(ProtocolRequest):
    sources: int = Field(default=5, ge=1, le=20, description="Sources to read.")
    workspace: Path | None = Field(default=None, description="Code-agent mode: this folder.")


def _researched(result: ResearchResult) -> ProtocolResult:
    return ProtocolResult(
        run_id=result.run_id, protocol=result.protocol, status=result.status,
        reason=result.reason, report=_path(result.report), answer=result.answer,
        summary=result.answer, detail=result,
    )  # fmt: skip


async def _research(request: ResearchRun, env: RunEnv) -> ProtocolResult:
    from assay.protocols.research import research_async

    return _researched(
        await research_async(
            request.topic,
            settings=env.settings,
            workspace=request.workspace,
            sources=request.sources,
            listener=env.listener,
            model=env.model,
        )
    )


async def _ask(request: ProtocolRequest, env: RunEnv) -> ProtocolResult:
    from assay.protocols.research import ask_async

    return _researched(
        await ask_async(
            request.topic, settings=env.settings, listener=env.listener, model=env.model
        )
    )


async def _resume_research(run_id: str, env: RunEnv) -> ProtocolResult:
    from assay.protocols.research import resume_async

    return _researched(
        await resume_async(run_id, settings=env.settings, listener=env.listener, model=env.model)
    )


RESEARCH = ProtocolSpec(
    name="research", request=ResearchRun, run=_research, resume=_resume_research,
    description="Plan, gather, extract claims, verify, and write a cited report.",
)  # fmt: skip
ASK = ProtocolSpec(
    name="ask", request=ProtocolRequest, run=_ask, resume=_resume_research,
    description="Answer one question directly; research-grade questions escalate.",
)  # fmt: skip


# web-research ---------------------------------------------------------------------------


class WebResearchRun(ProtocolRequest):
    urls: list[str] = Field(default_factory=list, max_length=20)
    keywords: list[str] = Field(default_factory=list, max_length=20)
    depth: Literal["shallow", "medium", "deep"] = "medium"
    output_format: str = "summary"
    how: str = Field(default="", description="How this front end gives a topic and sources.")


def _web_researched(result: WebResearchResult) -> ProtocolResult:
    output = result.output
    return ProtocolResult(
        run_id=result.run_id, protocol="web-research", status=result.status,
        reason=result.reason, report=result.report_path,
        summary=output[:4000] if isinstance(output, str) else "", detail=result,
    )  # fmt: skip


async def _web_research(request: WebResearchRun, env: RunEnv) -> ProtocolResult:
    from assay.protocols.web_research.results import WebResearchRequest
    from assay.protocols.web_research.skill import run_web_research

    checked = WebResearchRequest.build(
        request.topic, request.urls, request.keywords, request.depth, request.output_format,
        how=request.how,
    )  # fmt: skip
    return _web_researched(
        await run_web_research(checked, env.settings, listener=env.listener, model=env.model)
    )


WEB_RESEARCH = ProtocolSpec(
    name="web-research", request=WebResearchRun, run=_web_research,
    description="Read given URLs and search keywords; key points as verified claims.",
)  # fmt: skip


# deep -----------------------------------------------------------------------------------


class DeepRun(ProtocolRequest):
    max_directions: int = Field(default=MAX_DIRECTIONS, ge=1, le=MAX_DIRECTIONS)
    output: Path | None = Field(default=None, description="A folder for a copy of the report.")


def _deep_done(result: DeepResult) -> ProtocolResult:
    return ProtocolResult(
        run_id=result.run_id, protocol="deep", status=result.status, reason=result.reason,
        report=_path(result.report), summary=" ".join(str(s) for s in result.summary),
        detail=result,
    )  # fmt: skip


async def _deep(request: DeepRun, env: RunEnv) -> ProtocolResult:
    from assay.protocols.deep import deep_research_async

    return _deep_done(
        await deep_research_async(
            request.topic,
            settings=env.settings,
            max_directions=request.max_directions,
            output=request.output,
            listener=env.listener,
            model=env.model,
            echo=env.echo,
        )
    )


async def _resume_deep(run_id: str, env: RunEnv) -> ProtocolResult:
    from assay.protocols.deep import deep_resume_async

    return _deep_done(
        await deep_resume_async(run_id, settings=env.settings, model=env.model, echo=env.echo)
    )


def _deep_reports(settings: Settings) -> Path:
    output = settings.home / "deep-reports"
    output.mkdir(parents=True, exist_ok=True)
    return output


DEEP = ProtocolSpec(
    name="deep", request=DeepRun, run=_deep, resume=_resume_deep,
    unattended={"output": _deep_reports},
    description="Several directions researched and scored, then one report.",
)  # fmt: skip


# synth ----------------------------------------------------------------------------------


class SynthRun(ProtocolRequest):
    model_config = ConfigDict(extra="forbid", arbitrary_types_allowed=True)

    output: Path
    roster: Any = Field(default=None, description="A Roster, a roster file, or None.")
    timeouts: Any = Field(default=None, description="synth.Timeouts, or None: the defaults.")


def _synth_output(settings: Settings) -> Path:
    folder = settings.home / "synth-output"
    folder.mkdir(parents=True, exist_ok=True)
    # synth writes its output to a file (a folder there halts the panel): one per run
    stamp = datetime.now(UTC).strftime("%Y%m%d-%H%M%S")
    return folder / f"synth-{stamp}-{secrets.token_hex(3)}.md"


async def _synth(request: SynthRun, env: RunEnv) -> ProtocolResult:
    if env.model is not None:
        raise ValueError("synth builds its agents' models itself")
    from assay.protocols.synth import synth_async

    result: SynthResult = await synth_async(
        request.topic, roster=request.roster, output=request.output, settings=env.settings,
        timeouts=request.timeouts, listener=env.listener, echo=env.echo,
    )  # fmt: skip
    return ProtocolResult(
        run_id=result.run_id, protocol="synth", status=result.status, reason=result.reason,
        report=_path(result.report), summary=result.output[:4000], detail=result,
    )  # fmt: skip


SYNTH = ProtocolSpec(
    name="synth", request=SynthRun, run=_synth, unattended={"output": _synth_output},
    description="A panel of agents that research and fact-check each other.",
)  # fmt: skip
