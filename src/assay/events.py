"""Typed events: every line of ``run.log.jsonl`` is one of these.

A line is ``{"type": ..., "data": {...}, "ts": ISO-8601 UTC, "seq": n}``. Field names in
``data`` are camelCase, as agent-loop.txt shows them (``resultCount``, ``sourceIds``).
Each class's docstring is its documentation: ``docs/events.md`` is generated from them
(``python -m assay.docsgen``) and a test fails when the page is stale.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any, Literal, get_args

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError
from pydantic.alias_generators import to_camel

from assay.statuses import SettledStatus


class Event(BaseModel):
    """Base of every event; ``type`` is the name written to the log."""

    model_config = ConfigDict(
        frozen=True, alias_generator=to_camel, populate_by_name=True, extra="allow"
    )
    type: str  # the discriminator: each subclass narrows it to its own Literal name

    def data(self) -> dict[str, Any]:
        return self.model_dump(mode="json", by_alias=True, exclude_none=True, exclude={"type"})


class RunStarted(Event):
    """A run began (or resumed): its topic, protocol and id."""

    type: Literal["run.started"] = "run.started"
    run_id: str
    topic: str
    protocol: str
    resumed: bool = False


class RunFinished(Event):
    """A run ended: ``status`` is done, failed or interrupted; ``reason`` says why it stopped."""

    type: Literal["run.finished"] = "run.finished"
    status: Literal["done", "failed", "interrupted"]
    reason: str | None = None


class PhaseStarted(Event):
    """A protocol phase began (plan, gather, extract, verify, synthesize, or a protocol's own)."""

    type: Literal["phase.started"] = "phase.started"
    phase: str
    detail: str | None = None


class PhaseFinished(Event):
    """A protocol phase ended, with a short summary of what it produced."""

    type: Literal["phase.finished"] = "phase.finished"
    phase: str
    detail: str | None = None


class PlanWritten(Event):
    """``plan.md`` was written or its checkboxes were updated."""

    type: Literal["plan.written"] = "plan.written"
    path: str
    chars: int


class ToolSearch(Event):
    """A webSearch call: the queries fired concurrently and how many results came back.

    ``results`` lists what was offered (title and URL, in order), so a resumed run reads
    on from the same results instead of searching again.
    """

    type: Literal["tool.search"] = "tool.search"
    queries: list[str]
    result_count: int
    provider: str | None = None
    errors: dict[str, str] | None = None
    results: list[dict[str, str]] | None = None


class ToolOpenUrl(Event):
    """A readUrl call that saved a snapshot; ``snapshot`` is relative to the run directory."""

    type: Literal["tool.open_url"] = "tool.open_url"
    url: str
    title: str | None
    snapshot: str
    source_id: str | None = None


class ToolReadSkill(Event):
    """A readSkill call: the agent pulled one skill from the catalog (bootstrap reads them all
    before the first search; ``corrected`` marks reads the harness forced)."""

    type: Literal["tool.read_skill"] = "tool.read_skill"
    name: str
    corrected: bool = False


class ToolWorkspace(Event):
    """A code-agent tool call over the local workspace: grepWorkspace, listWorkspaceDir or
    todo, with its argument and how many results it gave."""

    type: Literal["tool.workspace"] = "tool.workspace"
    tool: Literal["grepWorkspace", "listWorkspaceDir", "todo"]
    argument: str
    result_count: int


class FullResearchRequested(Event):
    """The one-shot agent called requestFullResearch; ``runId`` is the run the full research
    goes on in (the same run: the research agent takes over with a fresh harness)."""

    type: Literal["tool.request_full_research"] = "tool.request_full_research"
    reason: str
    run_id: str | None = None


class SourceSkipped(Event):
    """A source was not used: the URL and the rule or failure that stopped it."""

    type: Literal["source.skipped"] = "source.skipped"
    url: str
    reason: str


class ClaimCreated(Event):
    """A claim was appended to ``claims.jsonl`` (right after its source was read)."""

    type: Literal["claim.created"] = "claim.created"
    id: str
    confidence: Literal["high", "medium", "low"]
    source_ids: list[str]


class ClaimVerified(Event):
    """A claim received a status from the verification engine (or from ``assay verify``)."""

    type: Literal["claim.verified"] = "claim.verified"
    id: str
    status: SettledStatus
    reason: str | None = None


class VerdictSetAside(Event):
    """A rule set a judge's SUPPORTS or REFUTES aside (``claims.vetoes``): the claim, the
    source judged, the rule's name, the label it set aside and why."""

    type: Literal["claim.set_aside"] = "claim.set_aside"
    id: str
    source_id: str
    rule: str
    label: str
    """SUPPORTS or REFUTES."""
    reason: str


class ReportUpdated(Event):
    """``report.md`` was (re)written; ``chars`` is its length."""

    type: Literal["report.updated"] = "report.updated"
    chars: int
    path: str | None = None


class SearchRound(Event):
    """A follow-up reading round (research, ask): what is missing, its queries, the plan
    question it serves, and who named it (``by``: ``model``, the page read's follow-up
    search, or ``rule``, the bridge rule of research/hops.py)."""

    type: Literal["research.round"] = "research.round"
    round: int
    missing: str
    queries: list[str]
    serves: str | None = None
    by: Literal["model", "rule"] | None = None


class HopRead(Event):
    """The hop loop of a research or ask run read one more page: how many it has read, the
    model tokens and the wall seconds it has spent so far (a resumed run goes on from
    these, so its budgets are not spent twice)."""

    type: Literal["research.hop_read"] = "research.hop_read"
    pages: int
    tokens: int
    seconds: float


class GatherEnded(Event):
    """The hop loop of a research or ask run with a model stopped: why (``reason``:
    answered, or which budget ended it, or nothing left to read), after how many pages and
    follow-up rounds, and whether the model said the question was answered."""

    type: Literal["research.gathered"] = "research.gathered"
    reason: str
    pages: int
    rounds: int
    answered: bool


class AnswerGiven(Event):
    """The run's short answer (research, ask): its text ("" for none), the claims it rests
    on, how it was found (``model:…`` or ``extractive:…``), why there is none, and each
    rule that reads the claims otherwise than the model answered (``flags``: ``rule``,
    ``ruleAnswer``, ``modelAnswer``, and ``settled``, what the model answered when shown
    both)."""

    type: Literal["research.answer"] = "research.answer"
    text: str
    claim_ids: list[str]
    method: str
    reason: str | None = None
    flags: list[dict[str, str]] | None = None


class WarningEvent(Event):
    """Something the user should know that did not stop the run (a cap hit, a retry)."""

    type: Literal["warning"] = "warning"
    message: str
    code: str | None = None


class StepFallback(Event):
    """A step's model attempt failed and its rules decided (``models/fallback.py``): the
    step's name, the model, the kind of failure (InvalidOutput, ModelTimeout, or Unusable:
    a valid answer that could not be used), the reason, and ``fallback`` (``rules``, or
    ``none`` for a step whose model answer is never replaced by a rule)."""

    type: Literal["step.fallback"] = "step.fallback"
    step: str
    model: str
    kind: str
    reason: str
    fallback: Literal["rules", "none"] = "rules"


class ErrorEvent(Event):
    """A run error, recorded before it reaches the user; ``kind`` is the exception class."""

    type: Literal["error"] = "error"
    message: str
    kind: str


class Signal(Event):
    """A protocol signal such as [PHASE1_DONE], [DONE], [BLOCK], [MISMATCH] or [INCOMPLETE]."""

    type: Literal["signal"] = "signal"
    signal: str
    agent: str | None = None
    detail: str | None = None


class Usage(Event):
    """Tokens (and cost, where a price is configured) of one model call or a run total."""

    type: Literal["usage"] = "usage"
    model: str
    input_tokens: int
    output_tokens: int
    estimated: bool = False
    cost_usd: float | None = None


class DeepSearchMethod(Event):
    """``assay deep`` Phase 0: the search method chosen (none when no method works), the
    detection evidence, and what every method tried gave."""

    type: Literal["deep.search_method"] = "deep.search_method"
    method: str | None
    evidence: str
    tried: list[str] = []


class DeepDirectionScored(Event):
    """``assay deep``: a direction's four checks and quality score (0–10) after its worker;
    ``attempt`` is 2 after an escalation retry."""

    type: Literal["deep.direction_scored"] = "deep.direction_scored"
    direction: int
    name: str
    score: float
    checks: dict[str, bool]
    attempt: int = 1


class DeepEscalation(Event):
    """``assay deep`` Phase 3: a direction failed a check or scored below 6.0 (``reason``);
    ``queries`` are the alternative formulations its retry worker runs."""

    type: Literal["deep.escalation"] = "deep.escalation"
    direction: int
    name: str
    reason: str
    queries: list[str]


class SynthChecked(Event):
    """``assay synth`` Phase 2: one row of a fact-check table: ``checker`` checked one of
    ``author``'s statements (the Phase 1 claim ``claimId``; ``checkId`` is the check's own
    claim) and the ledger supports ``verdict`` (VERIFIED, FALSE or UNVERIFIABLE)."""

    type: Literal["synth.checked"] = "synth.checked"
    checker: str
    author: str
    claim_id: str
    check_id: str
    verdict: str


# The union, in groups so that it reads (Python flattens a union of unions).
_RunEvents = RunStarted | RunFinished | PhaseStarted | PhaseFinished | PlanWritten
_ToolEvents = ToolSearch | ToolOpenUrl | ToolReadSkill | ToolWorkspace | FullResearchRequested
_ResearchEvents = SearchRound | HopRead | GatherEnded | AnswerGiven | SourceSkipped
_ClaimEvents = ClaimCreated | ClaimVerified | VerdictSetAside | ReportUpdated
_NoticeEvents = WarningEvent | StepFallback | ErrorEvent | Signal | Usage
_ProtocolEvents = DeepSearchMethod | DeepDirectionScored | DeepEscalation | SynthChecked
AnyEvent = Annotated[
    _RunEvents | _ToolEvents | _ResearchEvents | _ClaimEvents | _NoticeEvents | _ProtocolEvents,
    Field(discriminator="type"),
]
# Every event this version writes; a test checks that every Event subclass is a member.
EVENTS: TypeAdapter[AnyEvent] = TypeAdapter(AnyEvent)

EVENT_CLASSES: tuple[type[Event], ...] = get_args(get_args(AnyEvent)[0])


def event_type(cls: type[Event]) -> str:
    return str(cls.model_fields["type"].default)


EVENT_TYPES: dict[str, type[Event]] = {event_type(cls): cls for cls in EVENT_CLASSES}


def event_record(event: Event) -> dict[str, Any]:
    """``event``'s log line without ``ts`` and ``seq`` (what ``timeline.describe`` reads)."""
    return {"type": event.type, "data": event.data()}


def parse_event(record: Mapping[str, Any]) -> Event | None:
    """The typed event of a log line; None, never an exception, for a line this version
    cannot read: an unknown (newer) type, no type, or data that does not validate (an older
    shape, a damaged line). Readers skip None; the timeline shows raw lines as they are."""
    data = record.get("data")
    fields = dict(data) if isinstance(data, Mapping) else {}
    fields["type"] = record.get("type")  # after the data: a data key cannot override it
    try:
        return EVENTS.validate_python(fields)
    except ValidationError:
        return None
