"""The web-research flow: collect → key points (claims) → verify → synthesise → output.

    1. collect     urls read directly, keywords through the search provider, until the
                   depth's 3 / 5 / 7 usable sources (``collect.py``); each source's key
                   points are appended as claims right after it is read (``keypoints.py``)
    2. verify      other sources that state a claim are added to it, then the verification
                   engine gives every claim its status (``claim.verified`` events)
    3. synthesise  themes, conflicts and confidence (``synthesis.py``), rendered as summary,
                   report or structured (``render.py``, ``structured.py``) into report.md
                   (and report.json)

The run goes through ``protocols.runner``: a budget that runs out leaves the runner's
partial report (status ``partial``); no usable source ends the run as failed with a report
that lists every skipped source and why (status ``no_sources``: reported, not raised).

"No fetcher available" is ``fetch.enabled = false`` (read with ``getattr`` so this works
before the setting exists): then only the local index can supply sources, and a request
that needs the web fails with ``WebFetch permission missing, provide sources manually``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from assay.answers import answer_question
from assay.claims.crosscheck import corroborate_and_verify
from assay.claims.normalize import locate
from assay.claims.passages import run_pages
from assay.config import Settings
from assay.errors import BudgetExhausted, ConfigError, ProviderError, RunError
from assay.events import (
    Event,
    PhaseFinished,
    PhaseStarted,
    ReportUpdated,
    SourceSkipped,
    WarningEvent,
)
from assay.gather.reader import INDEX_SCHEME, ReadSource
from assay.gather.search.base import SearchResult, TimeRange
from assay.gather.session import GatherSession
from assay.models import Model
from assay.models.fallback import Step
from assay.protocols.outcome import claim_counts
from assay.protocols.runner import RunContext, execute, start_run
from assay.protocols.web_research import basis, render, structured, summary, synthesis
from assay.protocols.web_research.collect import Collected, collect
from assay.protocols.web_research.keypoints import (
    ExtractiveKeyPoints,
    KeyPoint,
    ModelKeyPoints,
    record_key_points,
)
from assay.protocols.web_research.results import (
    NO_FETCHER,
    PROTOCOL,
    ResultStatus,
    SourceFindings,
    Theme,
    WebResearchRequest,
    WebResearchResult,
)
from assay.store.eventlog import Listener, utc_now
from assay.store.runs import REPORT_FILE, REPORT_JSON_FILE

_READ_WARNINGS = ("source_token_cap", "run_token_cap", "source_size_cap")


class NoUsableSources(RunError):
    """Every candidate source failed or was skipped; the report says why for each."""


def fetch_enabled(settings: Settings) -> bool:
    return settings.fetch.enabled


def check_fetcher(settings: Settings, request: WebResearchRequest) -> None:
    """Raise the spec's message when the request needs the web and fetching is off."""
    if fetch_enabled(settings):
        return
    web_urls = [u for u in request.urls if not u.startswith(INDEX_SCHEME)]
    if web_urls or (request.keywords and settings.search != "local"):
        raise ConfigError(NO_FETCHER)


class _NoSearch:
    """The search provider of a run with no keywords: it is never asked."""

    name = "none"

    async def search(
        self, queries: list[str], *, max_results: int, time_range: TimeRange | None = None
    ) -> list[SearchResult]:
        raise ProviderError("this web-research run has no keywords to search")


@dataclass
class _Tracker:
    """What the run's events say about skipped sources and read warnings."""

    skip_reasons: dict[str, str] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)
    capped: set[str] = field(default_factory=set)  # URLs cut at the size cap

    def __call__(self, event: Event) -> None:
        if isinstance(event, SourceSkipped):
            self.skip_reasons[event.url] = event.reason
        elif isinstance(event, WarningEvent) and event.code in _READ_WARNINGS:
            self.warnings.append(event.message)
            if event.code == "source_size_cap":
                self.capped.add(event.message.split(" was cut at ", 1)[0])


@dataclass
class _Flow:
    request: WebResearchRequest
    context: RunContext
    model: Model | None
    tracker: _Tracker = field(default_factory=_Tracker)
    warnings: list[str] = field(default_factory=list)
    collected: Collected = field(default_factory=Collected)
    output: str | dict[str, Any] = ""

    @property
    def question(self) -> str:
        keywords = "; ".join(self.request.keywords)
        return f"{self.request.topic} ({keywords})" if keywords else self.request.topic

    async def key_points(self, read: ReadSource) -> list[KeyPoint]:
        async def by_model(model: Model) -> list[KeyPoint]:
            extractor = ModelKeyPoints(model, budget=self.context.budget, meter=self.context.meter)
            return await extractor.extract(self.question, read.text)

        async def by_rules() -> list[KeyPoint]:
            return await ExtractiveKeyPoints().extract(self.question, read.text)

        drawn = await Step.of("web_research.key_points", self.model, by_model, by_rules).run()
        if drawn.failure is not None:
            self.warnings.append(
                f"key points of {read.record.url} by the extractive engine: the model "
                f"failed ({drawn.failure.error})"
            )
        return drawn.value

    async def process(self, read: ReadSource) -> SourceFindings | None:
        """Key points of a source just read, appended as claims at once; every quote must
        be found again in the snapshot text."""
        points = [p for p in await self.key_points(read) if locate(read.text, p.quote.text)]
        if not points:
            return None
        questions = [self.request.topic, *self.request.keywords]
        return record_key_points(self.context.run, read.record, points, questions)

    async def body(self) -> None:
        run, settings = self.context.run, self.context.settings
        run.events.emit(PhaseStarted(phase="gather", detail=f"{self.request.target} sources"))
        # Given urls alone need no search provider (nor its key or URL).
        provider = None if self.request.keywords else _NoSearch()
        async with GatherSession(
            run, settings, keys=self.context.keys, budget=self.context.budget, provider=provider
        ) as session:
            await collect(
                session, self.request, self.process, self.tracker.skip_reasons, self.collected,
                self.tracker.capped,
            )  # fmt: skip
        found = self.collected
        run.info.usage.fetches = self.context.budget.spent().fetches
        detail = f"{len(found.findings)} used, {len(found.skipped)} skipped"
        run.events.emit(PhaseFinished(phase="gather", detail=detail))
        if found.findings:
            run.events.emit(PhaseStarted(phase="verify"))
            used = [f.record.id for f in found.findings]
            await corroborate_and_verify(run, self.context.judge, corroborators=used)
            run.events.emit(PhaseFinished(phase="verify"))
        run.events.emit(PhaseStarted(phase="synthesize"))
        made = await self.synthesize()
        self.write(made)
        run.events.emit(PhaseFinished(phase="synthesize", detail=f"confidence {made.confidence}"))
        if not found.findings:
            raise NoUsableSources(
                f"no usable source: all {found.candidates} candidate source(s) failed or "
                "were skipped (the report lists each one and why)"
            )

    async def synthesize(self) -> synthesis.Synthesis:
        ledger = {c.id: c for c in self.context.run.claim_ledger.claims()}
        used, notes = basis.window(
            self.collected.findings, self.collected.texts, self.context.settings.fetch.run_token_cap
        )
        claims, more = basis.usable_claims(self.question, used, ledger)
        used, partial = basis.drop_partial(used, claims)
        made = synthesis.Synthesis(
            topic=self.request.topic,
            findings=used,
            claims=claims,
            themes=[],
            conflicts=[],
            confidence="low",
            written_by=self.context.engine_line,
            generated=utc_now(),
            skipped=[*self.collected.skipped, *partial],
            warnings=[*self.collected.warnings, *self.tracker.warnings, *self.warnings,
                      *notes, *more],
        )  # fmt: skip
        if not claims:
            return made
        context = self.context
        made.answer = await answer_question(
            self.question, list(claims.values()), model=self.model, budget=context.budget,
            meter=context.meter,
            pages=run_pages(context.run.source_ledger) if self.model is not None else None,
        )  # fmt: skip

        async def by_model(model: Model) -> list[Theme]:
            context = self.context
            return await synthesis.model_themes(
                model, made, budget=context.budget, meter=context.meter
            )

        async def by_rules() -> list[Theme]:
            return []  # the extractive themes below stand in for none

        themed = await Step.of("web_research.themes", self.model, by_model, by_rules).run()
        if themed.failure is not None:
            made.warnings.append(
                f"themes by the extractive engine: the model failed ({themed.failure.error})"
            )
        made.themes = themed.value or synthesis.extractive_themes(made)
        made.conflicts = synthesis.find_conflicts(made)
        statuses = [c.status for c in claims.values()]
        made.confidence = synthesis.confidence(statuses, made.counted)
        return made

    def write(self, made: synthesis.Synthesis) -> None:
        run, fmt = self.context.run, self.request.output_format
        if not made.findings:
            text = render.render_empty(made, fmt)
        elif fmt == "summary":
            text = summary.render_summary(made)
        else:
            text = render.render_report(made)  # structured runs keep it as report.md
        self.output = text
        if fmt == "structured":
            value = structured.render_structured(made)
            self.output = value
            dumped = json.dumps(value, ensure_ascii=False, indent=2) + "\n"
            run.write_file(REPORT_JSON_FILE, dumped)
            run.events.emit(ReportUpdated(chars=len(dumped), path=REPORT_JSON_FILE))
        run.write_file(REPORT_FILE, text)
        run.events.emit(ReportUpdated(chars=len(text), path=REPORT_FILE))
        self.warnings = render.warning_texts(made)


async def run_web_research(
    request: WebResearchRequest,
    settings: Settings,
    *,
    model: Model | None = None,
    listener: Listener | None = None,
) -> WebResearchResult:
    """Run the skill for a checked request (see the module docstring)."""
    check_fetcher(settings, request)
    context = start_run(
        settings,
        request.topic,
        PROTOCOL,
        model=model,
        web_research={
            "urls": list(request.urls),
            "keywords": list(request.keywords),
            "depth": request.depth,
            "output_format": request.output_format,
        },
    )
    flow = _Flow(request, context, context.model)
    run = context.run
    run.events.listeners.append(flow.tracker)
    if listener is not None:
        run.events.listeners.append(listener)
    status: ResultStatus = "done"
    reason = None
    try:
        await execute(context, flow.body)
    except BudgetExhausted as exc:
        status, reason = "partial", str(exc)
        flow.output = (run.dir / REPORT_FILE).read_text(encoding="utf-8")
    except NoUsableSources as exc:
        status, reason = "no_sources", str(exc)
    return _result(flow, status, reason)


def _result(flow: _Flow, status: ResultStatus, reason: str | None) -> WebResearchResult:
    run = flow.context.run
    found = flow.collected
    return WebResearchResult(
        run_id=run.id,
        run_dir=run.dir,
        status=status,
        topic=flow.request.topic,
        output_format=flow.request.output_format,
        output=flow.output,
        report_path=run.dir / REPORT_FILE,
        sources_used=[
            {
                "id": f.record.id,
                "url": f.url,
                "title": f.title,
                "snapshot": f.record.snapshot,
                "accessed_at": f.record.accessed_at,
            }
            for f in found.findings
        ],
        sources_skipped=list(found.skipped),
        warnings=flow.warnings if status != "partial" else _partial_warnings(flow, reason),
        claims=claim_counts(run),
        engine="model" if flow.model is not None else "extractive",
        model=flow.model.name if flow.model is not None else None,
        usage=run.info.usage.model_dump(mode="json"),
        reason=reason,
    )


def _partial_warnings(flow: _Flow, reason: str | None) -> list[str]:
    found = flow.collected
    skipped = [f"{s.url} skipped: {s.reason}" for s in found.skipped]
    notes = [*skipped, *found.warnings, *flow.tracker.warnings, *flow.warnings]
    return [*dict.fromkeys(notes), f"partial: {reason}"]
