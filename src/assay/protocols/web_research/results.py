"""What the web-research skill takes and gives: the request (checked), findings, result.

The request rules are web-research.txt's: a topic and at least one of urls/keywords
(otherwise exactly ``topic + urls/keywords required``), a depth of shallow / medium / deep
for 3 / 5 / 7 sources, and one of three output formats.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, get_args

from assay.errors import BadInputError
from assay.store.sources import SourceRecord

Depth = Literal["shallow", "medium", "deep"]
OutputFormat = Literal["summary", "report", "structured"]
Confidence = Literal["high", "medium", "low"]
ResultStatus = Literal["done", "partial", "no_sources"]

DEPTH_SOURCES: dict[str, int] = {"shallow": 3, "medium": 5, "deep": 7}
MIN_SOURCES = 3
"""Fewer usable sources than this and the output says the minimum was not met."""
NEEDS_SOURCES = "topic + urls/keywords required"
NO_FETCHER = "WebFetch permission missing, provide sources manually"
PROTOCOL = "web-research"


@dataclass(frozen=True)
class WebResearchRequest:
    """The skill's input, checked: ``build`` raises the spec's messages."""

    topic: str
    urls: tuple[str, ...] = ()
    keywords: tuple[str, ...] = ()
    depth: Depth = "medium"
    output_format: OutputFormat = "summary"

    @classmethod
    def build(
        cls,
        topic: str | None,
        urls: Iterable[str] | None,
        keywords: Iterable[str] | None,
        depth: str,
        output_format: str,
        *,
        how: str = "",
    ) -> WebResearchRequest:
        """``how``: how this front end gives a topic and sources (its flags), added to the
        spec's message when they are missing."""
        text = " ".join((topic or "").split())
        kept_urls = _kept(urls, "urls")
        kept_keywords = _kept(keywords, "keywords")
        if not text or not (kept_urls or kept_keywords):
            raise BadInputError(f"{NEEDS_SOURCES}: {how}" if how else NEEDS_SOURCES)
        if depth not in get_args(Depth):
            raise BadInputError(f"depth must be shallow, medium or deep, got {depth!r}")
        if output_format not in get_args(OutputFormat):
            raise BadInputError(
                f"output_format must be summary, report or structured, got {output_format!r}"
            )
        return cls(text, kept_urls, kept_keywords, depth, output_format)  # type: ignore[arg-type]

    @property
    def target(self) -> int:
        """How many sources the depth asks for."""
        return DEPTH_SOURCES[self.depth]


def _kept(values: Iterable[str] | None, name: str) -> tuple[str, ...]:
    if values is None:
        return ()
    if isinstance(values, str):
        raise BadInputError(f"{name} must be a list of strings, not one string")
    kept = [" ".join(str(v).split()) for v in values]
    return tuple(dict.fromkeys(v for v in kept if v))


@dataclass(frozen=True)
class Quote:
    """A verbatim passage of a source's snapshot: ``snapshot_text[start:end]``."""

    text: str
    start: int
    end: int
    claim_id: str = ""
    """The key point (claim) this quote supports."""


@dataclass
class SourceFindings:
    """One usable source: its record, its key points (claim ids) and its quotes."""

    record: SourceRecord
    claim_ids: list[str] = field(default_factory=list)
    quotes: list[Quote] = field(default_factory=list)
    truncated: bool = False
    """Cut at the fetcher's size cap (1 MB): its first megabyte alone never makes it a
    source of the synthesis (its key points count only where another source states them)."""

    @property
    def url(self) -> str:
        return self.record.url

    @property
    def title(self) -> str:
        return self.record.title or self.record.final_url


@dataclass(frozen=True)
class Skipped:
    """A source that was not used, and the rule or failure that stopped it."""

    url: str
    reason: str


@dataclass(frozen=True)
class Theme:
    """A common theme: its name, its claims and (from a model) its written summary.

    ``summary`` cites claims as ``[claim_002]``; renderers turn those into URLs and markers.
    """

    name: str
    claim_ids: tuple[str, ...]
    summary: str | None = None


@dataclass(frozen=True)
class Conflict:
    """Conflicting information: the claims that disagree, and how."""

    claim_ids: tuple[str, ...]
    detail: str


@dataclass(frozen=True)
class WebResearchResult:
    """What ``web_research`` returns (and ``--json`` prints, via ``to_json``)."""

    run_id: str
    run_dir: Path
    status: ResultStatus
    topic: str
    output_format: OutputFormat
    output: str | dict[str, Any]
    """Markdown for summary and report; the validated JSON object for structured."""
    report_path: Path
    sources_used: list[dict[str, str]]
    sources_skipped: list[Skipped]
    warnings: list[str]
    claims: dict[str, int]
    """Claims by status (verified, weak, contradicted, needs_review, unverified)."""
    engine: str
    """``extractive`` or ``model``."""
    model: str | None
    usage: dict[str, Any]
    reason: str | None = None
    """Why the run stopped early (a budget) or found nothing usable."""

    @property
    def ok(self) -> bool:
        return self.status == "done"

    def to_json(self) -> dict[str, Any]:
        """The ``--json`` object; its keys follow ``assay research --json`` where they can."""
        return {
            "run_id": self.run_id,
            "run_dir": str(self.run_dir),
            "protocol": PROTOCOL,
            "status": self.status,
            "reason": self.reason,
            "topic": self.topic,
            "format": self.output_format,
            "report": str(self.report_path),
            "output": self.output,
            "claims": self.claims,
            "sources": self.sources_used,
            "skipped": [{"url": s.url, "reason": s.reason} for s in self.sources_skipped],
            "warnings": self.warnings,
            "usage": self.usage,
            "engine": self.engine,
            "model": self.model,
        }
