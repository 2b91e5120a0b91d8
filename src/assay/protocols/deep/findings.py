"""A direction's findings: typed records in the run, mirrored as the spec's temp-dir files.

Each worker's findings and the planner's review of each direction are appended to
``findings.jsonl`` in the run directory (``FindingsStore``), so a deep run can be resumed
at its next direction and shown. The spec's ``<tmp_dir>/<slug>.md`` files are mirrors of
those records: readable Markdown that ends in the same findings as JSON. Each fact names
its source URL, its relevance to the direction, its confidence and the query angle it
answers.
"""

from __future__ import annotations

import json
import re
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Literal

from assay.store.jsonl import append_jsonl, read_jsonl

FINDINGS_FILE = "findings.jsonl"
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
    relevance: float = 1.0  # to the direction's sub-question (or the topic), 0–1
    relevant: bool = True  # off-topic facts stay recorded but never reach the report
    answers_angle: bool = True  # relevant to the query that found it as well
    relevance_method: str = ""
    status: str = "unverified"  # the claim's status once the planner verified it
    established: bool = True
    """What the direction itself established: relevant to its own sub-question (not only to
    the topic) and naming what the sub-question names ("Danish …" for a direction on
    Danish publishing houses: a fact about an Albanian one establishes nothing for it).
    Only such facts count in the direction's score (scoring.py)."""


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
    angles: list[str] = field(default_factory=list)  # the planned queries; [] = ``queries``

    def angle_queries(self) -> list[str]:
        """The query angles coverage is measured on: a retry's queries are other wordings
        of the same angles, not new angles (a retry never lowers coverage)."""
        return self.angles or self.queries

    def fetched(self) -> list[SourceNote]:
        """The accepted sources whose full content was fetched, once per URL."""
        unique: dict[str, SourceNote] = {}
        for s in self.sources:
            if s.accepted and s.source_id and s.url not in unique:
                unique[s.url] = s
        return list(unique.values())

    def relevant_facts(self) -> list[Fact]:
        return [f for f in self.facts if f.relevant]

    def established_facts(self) -> list[Fact]:
        """The relevant facts the direction established (``Fact.established``)."""
        return [f for f in self.facts if f.relevant and f.established]

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
            angles=[str(q) for q in data.get("angles", [])],
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
                f"  relevance: {f.relevance:.2f} ({'relevant' if f.relevant else 'off-topic'}"
                f"{'' if f.established or not f.relevant else '; not about this direction'})",
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
        angles=first.angle_queries(),
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
    parts: dict[str, float] = field(default_factory=dict)  # the score's four inputs
    first_score: float | None = None
    insufficient: bool = False
    crashed: str | None = None
    output_files: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Review:
        return cls(**data)


@dataclass
class FindingsStore:
    """``findings.jsonl``: every worker's findings and every review, in the order made."""

    run_dir: Path
    fsync: bool = True

    @property
    def path(self) -> Path:
        return self.run_dir / FINDINGS_FILE

    def add_findings(self, findings: Findings) -> None:
        append_jsonl(self.path, {"kind": "findings", **findings.to_json()}, fsync=self.fsync)

    def add_review(self, review: Review) -> None:
        append_jsonl(self.path, {"kind": "review", **review.to_json()}, fsync=self.fsync)

    def findings(self) -> list[Findings]:
        """Each direction's findings, a retry merged into its first attempt."""
        by_number: dict[int, Findings] = {}
        for record in read_jsonl(self.path).records:
            if record.get("kind") != "findings":
                continue
            found = Findings.from_json(record)
            first = by_number.get(found.number)
            # a direction run again (after a resume) starts over
            fresh = first is None or found.attempt == 1
            by_number[found.number] = found if fresh or first is None else merge(first, found)
        return [by_number[n] for n in sorted(by_number)]

    def reviews(self) -> list[Review]:
        """The last review of each direction, in direction order."""
        by_number: dict[int, Review] = {}
        for record in read_jsonl(self.path).records:
            if record.get("kind") == "review":
                data = {k: v for k, v in record.items() if k != "kind"}
                review = Review.from_json(data)
                by_number[review.number] = review
        return [by_number[n] for n in sorted(by_number)]
