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

import asyncio
from collections.abc import Iterable
from typing import Any

from assay.config import Settings, load_settings
from assay.errors import BadInputError
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
    unknown = sorted(set(options) - set(Settings.model_fields))
    if unknown:
        raise BadInputError(f"web_research got unknown option(s): {', '.join(unknown)}")
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
    **options: Any,
) -> WebResearchResult:
    """Research ``topic`` from ``urls`` and/or ``keywords``; see ``web_research``."""
    request = WebResearchRequest.build(topic, urls, keywords, depth, output_format)
    model = options.pop("model", None)
    if model is not None and not isinstance(model, Model):
        options["model"] = model
        model = None
    return await run_web_research(request, _settings(settings, options), model=model)


def web_research(
    topic: str,
    urls: Iterable[str] | None = None,
    keywords: Iterable[str] | None = None,
    depth: str = "medium",
    output_format: str = "summary",
    *,
    settings: Settings | None = None,
    **options: Any,
) -> WebResearchResult:
    """Research ``topic``: read ``urls``, search ``keywords``, until the depth's 3 / 5 / 7
    usable sources; extract key points as claims, verify them, and write the output.

    ``options`` are settings given as flags would be (``search``, ``searxng_url``,
    ``model``, ``base_url``, ``allow_hosts``, ``budget_tokens``, ``budget_time``, ``home``...);
    ``model`` may also be a ``Model`` object (a ``ScriptedModel`` in tests). Raises
    ``BadInputError("topic + urls/keywords required")`` without a topic and a source, and
    ``ConfigError("WebFetch permission missing, provide sources manually")`` when fetching
    is off. Call ``web_research_async`` from inside an event loop.
    """
    return asyncio.run(
        web_research_async(
            topic, urls, keywords, depth, output_format, settings=settings, **options
        )
    )


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
