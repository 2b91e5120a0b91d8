"""``assay deep``: multi-directional deep research (../shared/spec/deep-research.txt).

Phases: 0 search-method detection (``detect``), 1 planning (``plan``), 2 sequential
workers (``worker``) reviewed by the planner (``scoring``), 3 escalation (``escalate``),
4 synthesis (``synthesis``), 5 output and integrity (``output``); ``protocol`` runs them.
The chat lines the spec prints (the search method, the complete plan, scores, the
executive summary) go to ``echo``: a library call prints nothing unless it passes one
(the CLI passes its console). ``deep_resume_async`` continues an interrupted run.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from assay.blocking import blocking
from assay.config import Settings, load_settings
from assay.models import Model
from assay.protocols.deep.plan import MAX_DIRECTIONS
from assay.protocols.deep.protocol import DeepOutcome, DeepPlanner, Echo
from assay.protocols.outcome import run_fields
from assay.protocols.runner import RunContext, execute, reopen_run, start_run
from assay.store.eventlog import Listener


@dataclass
class DeepResult:
    """What a deep run produced (also the ``--json`` object)."""

    run_id: str
    run_dir: str
    status: str
    reason: str | None
    report: str
    search_method: str
    directions: list[dict[str, Any]]
    summary: list[str]
    claims: dict[str, int]
    sources: list[dict[str, Any]]
    usage: dict[str, Any]
    engine: str
    model: str | None
    extra: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


async def deep_research_async(
    topic: str,
    *,
    settings: Settings | None = None,
    max_directions: int = MAX_DIRECTIONS,
    output: Path | str | None = None,
    model: Model | None = None,
    listener: Listener | None = None,
    echo: Echo | None = None,
) -> DeepResult:
    """Run deep research on ``topic``. The report, ``research_<topic>_<date>.md``, is saved
    in the run directory, and also in the folder ``output`` when one is given."""
    if not 1 <= max_directions <= MAX_DIRECTIONS:
        from assay.errors import BadInputError

        raise BadInputError(f"max_directions must be from 1 to {MAX_DIRECTIONS}")
    settings = settings or load_settings()
    folder = _folder(output)
    context = start_run(
        settings, topic, "deep", model=model, max_directions=max_directions,
        output_dir=str(folder) if folder is not None else None,
    )  # fmt: skip
    if listener is not None:
        context.run.events.listeners.append(listener)
    planner = DeepPlanner(
        context, max_directions=max_directions, output_dir=folder,
        echo=echo or (lambda _line: None),
    )  # fmt: skip
    return _result(context, await execute(context, planner.run_all))


def _folder(output: Path | str | None) -> Path | None:
    """The folder the user asked for a copy of the report in, absolute (resume runs it
    from wherever it is started)."""
    return Path(output).resolve() if output is not None else None


async def deep_resume_async(
    run_id: str,
    *,
    settings: Settings | None = None,
    model: Model | None = None,
    echo: Echo | None = None,
) -> DeepResult:
    """Continue an interrupted deep run at its first direction without a review."""
    settings = settings or load_settings()
    context = reopen_run(settings, run_id, model=model)
    extra = context.run.info.model_extra or {}
    asked = extra.get("output_dir")
    planner = DeepPlanner(
        context,
        max_directions=int(extra.get("max_directions", MAX_DIRECTIONS)),
        output_dir=Path(str(asked)) if asked else None,
        echo=echo or (lambda _line: None),
    )
    return _result(context, await execute(context, planner.resume_all))


def _result(context: RunContext, outcome: DeepOutcome) -> DeepResult:
    return DeepResult(
        **run_fields(context),
        report=str(outcome.report),
        search_method=outcome.method.name,
        directions=[r.to_json() for r in outcome.reviews],
        summary=outcome.summary,
    )


deep_research = blocking(deep_research_async)


__all__ = ["DeepResult", "deep_research", "deep_research_async", "deep_resume_async"]
