"""A worker's findings file: readable Markdown that ends in the same findings as JSON.

The worker writes it to its direction's ``output_file``; the planner reads it back
(``Findings.parse``) to run the checks, and the synthesis reads every file of the temp
dir. Each fact names its source URL, its confidence and the query angle it answers.
"""

from __future__ import annotations

import json
import re
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Literal

Confidence = Literal["high", "medium", "low"]
_JSON_BLOCK = re.compile(r"```json\n(.*?)\n```", re.DOTALL)


@dataclass(frozen=True)
class SourceNote:
    """One search result as the worker judged it against the acceptance criteria."""

    url: str
    title: str
    query: str
    authority: int
    recency: str
    accepted: bool
    reason: str
    source_id: str | None = None  # set once fetched


@dataclass(frozen=True)
class Fact:
    """One fact from a fetched source, recorded in the claim ledger as ``claim_id``."""

    text: str
    url: str
    source_id: str
    claim_id: str
    confidence: Confidence
    angle: str


@dataclass
class Findings:
    """What one worker found for one direction."""

    number: int
    direction: str
    queries: list[str]
    sources: list[SourceNote] = field(default_factory=list)
    facts: list[Fact] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    attempt: int = 1

    def fetched(self) -> list[SourceNote]:
        """The accepted sources whose full content was fetched."""
        return [s for s in self.sources if s.accepted and s.source_id]

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Findings:
        return cls(
            number=int(data["number"]),
            direction=str(data["direction"]),
            queries=[str(q) for q in data["queries"]],
            sources=[SourceNote(**s) for s in data.get("sources", [])],
            facts=[Fact(**f) for f in data.get("facts", [])],
            notes=[str(n) for n in data.get("notes", [])],
            attempt=int(data.get("attempt", 1)),
        )

    def to_markdown(self, prompt: str) -> str:
        lines = [f"# Findings: {self.direction}", "", "## Task", "", "```", prompt, "```", ""]
        lines += ["## Sources", ""]
        for s in self.sources:
            verdict = "accepted" if s.accepted else "rejected"
            fetched = f", fetched as {s.source_id}" if s.source_id else ""
            lines.append(
                f"- {s.url} — authority {s.authority}/5, recency {s.recency}, {verdict} "
                f"({s.reason}{fetched}); query: {s.query}"
            )
        lines += ["", "## Facts", ""]
        for f in self.facts:
            lines += [
                f"- fact: {f.text}",
                f"  source: {f.url}",
                f"  confidence: {f.confidence}",
                f"  angle: {f.angle}",
                f"  claim: {f.claim_id}",
            ]
        lines += ["", "## Notes", "", *[f"- {n}" for n in self.notes]]
        lines += ["", "```json", json.dumps(self.to_json(), ensure_ascii=False), "```", ""]
        return "\n".join(lines)

    def write(self, path: Path, prompt: str) -> None:
        path.write_text(self.to_markdown(prompt), encoding="utf-8")

    @classmethod
    def parse(cls, text: str) -> Findings:
        match = _JSON_BLOCK.search(text)
        if match is None:
            raise ValueError("the findings file has no JSON block")
        data: dict[str, Any] = json.loads(match.group(1))
        return cls.from_json(data)

    @classmethod
    def read(cls, path: Path) -> Findings:
        return cls.parse(path.read_text(encoding="utf-8"))


def merge(first: Findings, retry: Findings) -> Findings:
    """A direction's findings after an escalation retry: both workers' sources and facts,
    and every query attempted."""
    queries = list(dict.fromkeys([*first.queries, *retry.queries]))
    return Findings(
        number=first.number,
        direction=first.direction,
        queries=queries,
        sources=[*first.sources, *retry.sources],
        facts=[*first.facts, *retry.facts],
        notes=[*first.notes, *retry.notes],
        attempt=retry.attempt,
    )


@dataclass
class Review:
    """The planner's record of one direction: every query attempted, checks, score, and
    what happened (escalated, marked insufficient, crashed)."""

    number: int
    name: str
    queries: list[str]
    score: float | None = None
    checks: dict[str, bool] = field(default_factory=dict)
    escalated: bool = False
    retry_queries: list[str] = field(default_factory=list)
    first_score: float | None = None
    insufficient: bool = False
    crashed: str | None = None
    output_files: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return asdict(self)
