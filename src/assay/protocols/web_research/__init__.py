"""The web-research skill (web-research.txt): a reusable research step for other agents.

    result = assay.web_research(
        "Halvorsen Lighthouse", keywords=["lighthouse history"], depth="shallow",
        output_format="structured",
    )
    result.output        # markdown (summary, report) or the validated JSON object
    result.report_path   # report.md in the run directory (report.json beside it)

Modules, in the order the flow uses them: ``results`` (request, findings, result),
``collect`` (sources), ``keypoints`` (claims), ``synthesis`` (themes, conflicts,
confidence), ``antipatterns``, ``render`` and ``structured`` (outputs), ``skill`` (the flow).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from assay.blocking import blocking
from assay.config import Settings, load_settings
from assay.models import Model
from assay.protocols.web_research.results import (
    DEPTH_SOURCES,
    MIN_SOURCES,
    NEEDS_SOURCES,
    NO_FETCHER,
    WebResearchRequest,
    WebResearchResult,
)
from assay.protocols.web_research.skill import fetch_enabled, run_web_research


def _settings(settings: Settings | None, options: dict[str, Any]) -> Settings:
    given = {k: v for k, v in options.items() if v is not None}
    if settings is None:
        return load_settings(**given)
    if not given:
        return settings
    checked = Settings.model_validate({**settings.model_dump(), **given})
    return settings.model_copy(update={k: getattr(checked, k) for k in given})


async def web_research_async(
    topic: str,
    urls: Iterable[str] | None = None,
    keywords: Iterable[str] | None = None,
    depth: str = "medium",
    output_format: str = "summary",
    *,
    settings: Settings | None = None,
    model: Model | str | None = None,
    home: Path | str | None = None,
    search: str | None = None,
    searxng_url: str | None = None,
    base_url: str | None = None,
    allow_hosts: Sequence[str] | None = None,
    budget_tokens: int | None = None,
    budget_time: float | None = None,
) -> WebResearchResult:
    """Research ``topic``: read ``urls``, search ``keywords``, until the depth's 3 / 5 / 7
    usable sources; extract key points as claims, verify them, and write the output.

    The keyword arguments after ``settings`` are settings given as flags would be, and win
    over ``settings``; any other setting goes in ``settings``. ``model`` is a
    ``provider:model`` name or a ``Model`` object (a ``ScriptedModel`` in tests). Raises
    ``BadInputError("topic + urls/keywords required")`` without a topic and a source, and
    ``ConfigError("WebFetch permission missing, provide sources manually")`` when fetching
    is off. ``web_research`` is the same for callers without an event loop.
    """
    request = WebResearchRequest.build(topic, urls, keywords, depth, output_format)
    flags = {
        "model": model if isinstance(model, str) else None,
        "home": home,
        "search": search,
        "searxng_url": searxng_url,
        "base_url": base_url,
        "allow_hosts": list(allow_hosts) if allow_hosts is not None else None,
        "budget_tokens": budget_tokens,
        "budget_time": budget_time,
    }
    given = model if isinstance(model, Model) else None
    return await run_web_research(request, _settings(settings, flags), model=given)


web_research = blocking(web_research_async)


__all__ = [
    "DEPTH_SOURCES",
    "MIN_SOURCES",
    "NEEDS_SOURCES",
    "NO_FETCHER",
    "WebResearchRequest",
    "WebResearchResult",
    "fetch_enabled",
    "run_web_research",
    "web_research",
    "web_research_async",
]
