"""Typed events: every line of ``run.log.jsonl`` is one of these.

A line is ``{"type": ..., "data": {...}, "ts": ISO-8601 UTC, "seq": n}``. Field names in
``data`` are camelCase, as agent-loop.txt shows them (``resultCount``, ``sourceIds``).
Each class's docstring is its documentation: ``docs/events.md`` is generated from them
(``python -m assay.docsgen``) and a test fails when the page is stale.
"""

from __future__ import annotations

from typing import Any, ClassVar, Literal

from pydantic import BaseModel, ConfigDict
from pydantic.alias_generators import to_camel


class Event(BaseModel):
    """Base of every event; ``type`` is the name written to the log."""

    model_config = ConfigDict(
        frozen=True, alias_generator=to_camel, populate_by_name=True, extra="allow"
    )
    type: ClassVar[str]

    def data(self) -> dict[str, Any]:
        return self.model_dump(mode="json", by_alias=True, exclude_none=True)


class RunStarted(Event):
    """A run began (or resumed): its topic, protocol and id."""

    type: ClassVar[str] = "run.started"
    run_id: str
    topic: str
    protocol: str
    resumed: bool = False


class RunFinished(Event):
    """A run ended: ``status`` is done, failed or interrupted; ``reason`` says why it stopped."""

    type: ClassVar[str] = "run.finished"
    status: Literal["done", "failed", "interrupted"]
    reason: str | None = None


class PhaseStarted(Event):
    """A protocol phase began (plan, gather, extract, verify, synthesize, or a protocol's own)."""

    type: ClassVar[str] = "phase.started"
    phase: str
    detail: str | None = None


class PhaseFinished(Event):
    """A protocol phase ended, with a short summary of what it produced."""

    type: ClassVar[str] = "phase.finished"
    phase: str
    detail: str | None = None


class PlanWritten(Event):
    """``plan.md`` was written or its checkboxes were updated."""

    type: ClassVar[str] = "plan.written"
    path: str
    chars: int


class ToolSearch(Event):
    """A webSearch call: the queries fired concurrently and how many results came back.

    ``results`` lists what was offered (title and URL, in order), so a resumed run reads
    on from the same results instead of searching again.
    """

    type: ClassVar[str] = "tool.search"
    queries: list[str]
    result_count: int
    provider: str | None = None
    errors: dict[str, str] | None = None
    results: list[dict[str, str]] | None = None


class ToolOpenUrl(Event):
    """A readUrl call that saved a snapshot; ``snapshot`` is relative to the run directory."""

    type: ClassVar[str] = "tool.open_url"
    url: str
    title: str | None
    snapshot: str
    source_id: str | None = None


class ToolReadSkill(Event):
    """A readSkill call: the agent pulled one skill from the catalog (bootstrap reads them all
    before the first search; ``corrected`` marks reads the harness forced)."""

    type: ClassVar[str] = "tool.read_skill"
    name: str
    corrected: bool = False


class ToolWorkspace(Event):
    """A code-agent tool call over the local workspace: grepWorkspace, listWorkspaceDir or
    todo, with its argument and how many results it gave."""

    type: ClassVar[str] = "tool.workspace"
    tool: Literal["grepWorkspace", "listWorkspaceDir", "todo"]
    argument: str
    result_count: int


class FullResearchRequested(Event):
    """The one-shot agent called requestFullResearch; ``runId`` is the run the full research
    goes on in (the same run: the research agent takes over with a fresh harness)."""

    type: ClassVar[str] = "tool.request_full_research"
    reason: str
    run_id: str | None = None


class SourceSkipped(Event):
    """A source was not used: the URL and the rule or failure that stopped it."""

    type: ClassVar[str] = "source.skipped"
    url: str
    reason: str


class ClaimCreated(Event):
    """A claim was appended to ``claims.jsonl`` (right after its source was read)."""

    type: ClassVar[str] = "claim.created"
    id: str
    confidence: Literal["high", "medium", "low"]
    source_ids: list[str]


class ClaimVerified(Event):
    """A claim received a status from the verification engine (or from ``assay verify``)."""

    type: ClassVar[str] = "claim.verified"
    id: str
    status: Literal["verified", "weak", "contradicted", "needs_review"]
    reason: str | None = None


class VerdictSetAside(Event):
    """A rule set a judge's SUPPORTS or REFUTES aside (``claims.vetoes``): the claim, the
    source judged, the rule's name, the label it set aside and why."""

    type: ClassVar[str] = "claim.set_aside"
    id: str
    source_id: str
    rule: str
    label: str
    """SUPPORTS or REFUTES."""
    reason: str


class ReportUpdated(Event):
    """``report.md`` was (re)written; ``chars`` is its length."""

    type: ClassVar[str] = "report.updated"
    chars: int
    path: str | None = None


class SearchRound(Event):
    """A follow-up reading round (research, ask): what is missing, its queries, the plan
    question it serves, and who named it (``by``: ``model``, the page read's follow-up
    search, or ``rule``, the bridge rule of research/hops.py)."""

    type: ClassVar[str] = "research.round"
    round: int
    missing: str
    queries: list[str]
    serves: str | None = None
    by: Literal["model", "rule"] | None = None


class HopRead(Event):
    """The hop loop of a research or ask run read one more page: how many it has read, the
    model tokens and the wall seconds it has spent so far (a resumed run goes on from
    these, so its budgets are not spent twice)."""

    type: ClassVar[str] = "research.hop_read"
    pages: int
    tokens: int
    seconds: float


class GatherEnded(Event):
    """The hop loop of a research or ask run with a model stopped: why (``reason``:
    answered, or which budget ended it, or nothing left to read), after how many pages and
    follow-up rounds, and whether the model said the question was answered."""

    type: ClassVar[str] = "research.gathered"
    reason: str
    pages: int
    rounds: int
    answered: bool


class AnswerGiven(Event):
    """The run's short answer (research, ask): its text ("" for none), the claims it rests
    on, how it was found (``model:…`` or ``extractive:…``), why there is none, and each
    rule that reads the claims otherwise than the model answered (``flags``: ``rule``,
    ``ruleAnswer``, ``modelAnswer``)."""

    type: ClassVar[str] = "research.answer"
    text: str
    claim_ids: list[str]
    method: str
    reason: str | None = None
    flags: list[dict[str, str]] | None = None


class WarningEvent(Event):
    """Something the user should know that did not stop the run (a cap hit, a retry)."""

    type: ClassVar[str] = "warning"
    message: str
    code: str | None = None


class StepFallback(Event):
    """A step's model attempt failed and its rules decided (``models/fallback.py``): the
    step's name, the model, the kind of failure (InvalidOutput, ModelTimeout, or Unusable:
    a valid answer that could not be used), the reason, and ``fallback`` (``rules``, or
    ``none`` for a step whose model answer is never replaced by a rule)."""

    type: ClassVar[str] = "step.fallback"
    step: str
    model: str
    kind: str
    reason: str
    fallback: Literal["rules", "none"] = "rules"


class ErrorEvent(Event):
    """A run error, recorded before it reaches the user; ``kind`` is the exception class."""

    type: ClassVar[str] = "error"
    message: str
    kind: str


class Signal(Event):
    """A protocol signal such as [PHASE1_DONE], [DONE], [BLOCK], [MISMATCH] or [INCOMPLETE]."""

    type: ClassVar[str] = "signal"
    signal: str
    agent: str | None = None
    detail: str | None = None


class Usage(Event):
    """Tokens (and cost, where a price is configured) of one model call or a run total."""

    type: ClassVar[str] = "usage"
    model: str
    input_tokens: int
    output_tokens: int
    estimated: bool = False
    cost_usd: float | None = None


class DeepSearchMethod(Event):
    """``assay deep`` Phase 0: the search method chosen (none when no method works), the
    detection evidence, and what every method tried gave."""

    type: ClassVar[str] = "deep.search_method"
    method: str | None
    evidence: str
    tried: list[str] = []


class DeepDirectionScored(Event):
    """``assay deep``: a direction's four checks and quality score (0–10) after its worker;
    ``attempt`` is 2 after an escalation retry."""

    type: ClassVar[str] = "deep.direction_scored"
    direction: int
    name: str
    score: float
    checks: dict[str, bool]
    attempt: int = 1


class DeepEscalation(Event):
    """``assay deep`` Phase 3: a direction failed a check or scored below 6.0 (``reason``);
    ``queries`` are the alternative formulations its retry worker runs."""

    type: ClassVar[str] = "deep.escalation"
    direction: int
    name: str
    reason: str
    queries: list[str]


class SynthChecked(Event):
    """``assay synth`` Phase 2: one row of a fact-check table: ``checker`` checked one of
    ``author``'s statements (the Phase 1 claim ``claimId``; ``checkId`` is the check's own
    claim) and the ledger supports ``verdict`` (VERIFIED, FALSE or UNVERIFIABLE)."""

    type: ClassVar[str] = "synth.checked"
    checker: str
    author: str
    claim_id: str
    check_id: str
    verdict: str


EVENT_TYPES: dict[str, type[Event]] = {
    cls.type: cls
    for cls in (
        RunStarted,
        RunFinished,
        PhaseStarted,
        PhaseFinished,
        PlanWritten,
        ToolSearch,
        ToolOpenUrl,
        ToolReadSkill,
        ToolWorkspace,
        FullResearchRequested,
        SearchRound,
        HopRead,
        GatherEnded,
        AnswerGiven,
        SourceSkipped,
        ClaimCreated,
        ClaimVerified,
        VerdictSetAside,
        ReportUpdated,
        WarningEvent,
        StepFallback,
        ErrorEvent,
        Signal,
        Usage,
        DeepSearchMethod,
        DeepDirectionScored,
        DeepEscalation,
        SynthChecked,
    )
}


def parse_event(record: dict[str, Any]) -> Event | None:
    """The typed event for a log record, or None for a type this version does not know."""
    cls = EVENT_TYPES.get(str(record.get("type")))
    if cls is None:
        return None
    return cls.model_validate(record.get("data") or {})
