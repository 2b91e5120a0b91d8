"""How every protocol run starts, is accounted for, and ends — always with a reason.

``RunContext`` holds what a protocol needs (the run, settings, keys, budget, usage meter,
judge). ``execute`` runs a protocol's body inside it and owns the ending, whatever the
body raises:

    done         the body finished; its report is in place
    done         a budget ran out (the time budget is a deadline: the body is cancelled
                 when it passes): the ledger's claims become a partial report stating
                 the reason (exit code 3), nothing already recorded is lost
    interrupted  Ctrl-C or a cancellation: everything recorded stays; `assay resume` goes on
    failed       any error — a run error, a user error found mid-run (a missing key, an
                 unknown provider, a path outside the workspace), a bug — or a run in
                 which searches were made and none answered (``NoSearchSucceeded``):
                 recorded as an ``error`` event before it reaches the user

Every ending is a ``run.finished`` event and the status in run.json; a model the context
built is closed. No exception leaves the ending to the caller (``assay ask`` escalating to
full research goes on in the same run, inside its body).
"""

from __future__ import annotations

import asyncio
import os
import socket
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import TypeVar

from assay.__about__ import __version__
from assay.budget import Budget
from assay.claims.extract import ClaimExtractor
from assay.claims.judge import Judge
from assay.closing import close_fully
from assay.config import Settings
from assay.engines.select import build_extractor, build_judge
from assay.errors import AssayError, BudgetExhausted, RunCancelled
from assay.events import ErrorEvent, ReportUpdated, RunFinished, RunStarted, WarningEvent
from assay.keys import KeyStore
from assay.language import ENGLISH, ENGLISH_ONLY, language, run_language, using_language
from assay.models import Model
from assay.models.fallback import recording_fallbacks
from assay.models.registry import model_from_settings
from assay.models.usage import CallUsage, UsageMeter, UsageSummary
from assay.protocols.searchwatch import SearchWatch
from assay.report.claims_report import render_claims_report
from assay.store.runs import REPORT_FILE, Run, RunStore
from assay.user_input import require_topic

T = TypeVar("T")


_interrupted: list[str] = []


def interrupted_run_ids() -> list[str]:
    """Runs this process ended as interrupted (the CLI names them after Ctrl-C)."""
    return list(_interrupted)


RunObserver = Callable[[Run], None]
_observers: ContextVar[tuple[RunObserver, ...]] = ContextVar("run_observers", default=())


@contextmanager
def observing_runs(observer: RunObserver) -> Iterator[None]:
    """Tell ``observer`` of every run started or resumed in this context, once its context
    is built and before its ``run.started`` event: a server learns the id of the run it
    launched, a batch attaches a listener that sees every event. Context variables follow
    asyncio tasks, so each task observes its own runs, whatever the protocol."""
    token = _observers.set((*_observers.get(), observer))
    try:
        yield
    finally:
        _observers.reset(token)


def _observe(run: Run) -> None:
    for observer in _observers.get():
        observer(run)


@dataclass
class RunContext:
    """Everything one protocol run shares; built by ``start_run`` or ``resume_run``."""

    run: Run
    settings: Settings
    keys: KeyStore
    budget: Budget
    meter: UsageMeter = field(default_factory=UsageMeter)
    model: Model | None = None
    judge: Judge = field(init=False)
    extractor: ClaimExtractor = field(init=False)
    searches: SearchWatch = field(default_factory=SearchWatch)
    owns_model: bool = field(init=False, default=False)
    fetched_before: int = field(init=False, default=0)
    """Pages the run had fetched before this context (a resumed run adds to them)."""
    adopted: list[Model] = field(default_factory=list)
    """Models a protocol built for this run (synth's per-agent models), closed with it."""
    language: str = field(init=False, default=ENGLISH)
    """The language the run searches and writes in (``assay.language``), in run.json."""

    def __post_init__(self) -> None:
        self.language = run_language(self.settings.language, self.run.info.topic)
        if getattr(self.run.info, "language", None) != self.language:
            self.run.info.language = self.language  # type: ignore[attr-defined]
            self.run.save_info()
        self.fetched_before = self.run.info.usage.fetches
        self.meter.add_listener(self._record_usage)
        self.run.events.listeners.append(self.searches)
        if self.model is None:
            self.model = model_from_settings(self.settings, self.keys)
            self.owns_model = self.model is not None
        self.judge = build_judge(self.model, budget=self.budget, meter=self.meter)
        self.extractor = build_extractor(self.model, budget=self.budget, meter=self.meter)

    @property
    def engine(self) -> str:
        return "extractive" if self.model is None else "model"

    @property
    def engine_line(self) -> str:
        """Which engine and model wrote the report, as every report states it."""
        engine = "the extractive engine" if self.model is None else f"model {self.model.name}"
        return f"assay {__version__} ({self.run.info.protocol}) with {engine}"

    def _record_usage(self, call: CallUsage, totals: UsageSummary) -> None:
        self.run.events.emit(call.to_event())
        self.run.info.usage = self.run.info.usage.model_copy(update=totals.as_dict())
        self.run.save_info()


def open_store(settings: Settings, keys: KeyStore) -> RunStore:
    secrets = frozenset(keys.known_secret_values())
    return RunStore(settings.home, fsync=settings.fsync == "always", secrets=secrets)


def start_run(
    settings: Settings, topic: str, protocol: str, *, model: Model | None = None, **extra: object
) -> RunContext:
    """A new run directory and its context; ``extra`` goes into run.json.

    An empty topic is refused here, before the directory exists: every protocol (and every
    front end: CLI, API, MCP, batch) starts its runs through this function.
    """
    require_topic(topic)
    keys = KeyStore(settings.home, settings.keys)
    run = open_store(settings, keys).create(topic, protocol, settings.snapshot())
    for key, value in extra.items():
        setattr(run.info, key, value)
    run.save_info()
    try:
        context = RunContext(run, settings, keys, Budget.from_settings(settings), model=model)
    except Exception as exc:  # e.g. an unknown model provider: the run still ends
        _fail(run, exc)
        raise
    _observe(run)
    run.events.emit(RunStarted(run_id=run.id, topic=topic, protocol=protocol))
    return context


def reopen_run(settings: Settings, run_id: str, *, model: Model | None = None) -> RunContext:
    """An interrupted run, ready to go on (``assay resume``)."""
    keys = KeyStore(settings.home, settings.keys)
    run = open_store(settings, keys).open(run_id)
    run.info.status = "running"
    run.info.reason = None
    run.info.finished_at = None
    run.info.pid, run.info.host = os.getpid(), socket.gethostname()  # whoever goes on with it
    run.save_info()
    try:
        context = RunContext(run, settings, keys, Budget.from_settings(settings), model=model)
    except Exception as exc:
        _fail(run, exc)
        raise
    _observe(run)
    info = run.info
    run.events.emit(
        RunStarted(run_id=run.id, topic=info.topic, protocol=info.protocol, resumed=True)
    )
    return context


def write_partial_report(context: RunContext, reason: str) -> None:
    """The ledger as it stands, as a report that says why it is partial."""
    run = context.run
    claims = run.claim_ledger.claims()
    sources = run.source_ledger.records()
    text = render_claims_report(
        run.info.topic, claims, sources, written_by=context.engine_line, stopped=reason
    )
    run.write_file(REPORT_FILE, text)
    run.events.emit(ReportUpdated(chars=len(text), path=REPORT_FILE))


async def execute(context: RunContext, body: Callable[[], Awaitable[T]]) -> T:
    """Run ``body`` and end the run as the module docstring says (errors are re-raised),
    in the run's language (``assay.language``: its stop words, report text, and what
    every model call is told); every step's fallback goes to the run's log."""
    with using_language(context.language), recording_fallbacks(context.run.events.emit):
        if context.language != ENGLISH:
            name = language(context.language).name
            context.run.events.emit(
                WarningEvent(message=ENGLISH_ONLY.format(name=name), code="language")
            )
        return await _execute(context, body)


async def _execute(context: RunContext, body: Callable[[], Awaitable[T]]) -> T:
    run = context.run
    try:
        try:
            result = await _within_time_budget(context, body)
        finally:
            _count_fetches(context)  # into run.info, which every ending below saves
        failure = context.searches.failure()
        if failure is not None:
            raise failure
    except BudgetExhausted as exc:
        run.events.emit(WarningEvent(message=str(exc), code="budget"))
        write_partial_report(context, str(exc))
        exc.report = str(run.dir / REPORT_FILE)
        _finish(run, "done", f"partial: {exc}")
        raise
    except (asyncio.CancelledError, KeyboardInterrupt, RunCancelled):
        _finish(run, "interrupted", f"interrupted: resume with `assay resume {run.id}`")
        _interrupted.append(run.id)
        raise
    except Exception as exc:
        _fail(run, exc)
        raise
    finally:
        await _close_model(context)
    if warning := context.searches.warning():
        run.events.emit(WarningEvent(message=warning, code="search_partial"))
    _finish(run, "done", None)
    return result


def _count_fetches(context: RunContext) -> None:
    fetched = context.fetched_before + context.budget.spent().fetches
    context.run.info.usage = context.run.info.usage.model_copy(update={"fetches": fetched})


async def _within_time_budget(context: RunContext, body: Callable[[], Awaitable[T]]) -> T:
    """``body()``, cancelled when the time budget runs out (then BudgetExhausted).

    Protocols check the budget between steps; this deadline also ends a step that is
    still waiting (a slow page, a model, a search) when the time is up.
    """
    left = context.budget.remaining_time()
    if left is None:
        return await body()
    deadline = asyncio.timeout(left)
    try:
        async with deadline:
            return await body()
    except TimeoutError:
        if not deadline.expired():
            raise
        reason = context.budget.exhausted_reason() or "time budget exhausted"
        raise BudgetExhausted(reason) from None


async def _close_model(context: RunContext) -> None:
    await close_fully(lambda: _close_models(context))  # a cancel must not leave one open


async def _close_models(context: RunContext) -> None:
    owned = [context.model] if context.owns_model and context.model is not None else []
    for model in [*owned, *context.adopted]:
        try:
            await model.aclose()
        except Exception as exc:  # closing must not hide how the run ended
            context.run.events.emit(WarningEvent(message=f"closing the model: {exc}", code="model"))


def _fail(run: Run, exc: BaseException) -> None:
    message = str(exc) if isinstance(exc, AssayError) else f"{type(exc).__name__}: {exc}"
    run.events.emit(ErrorEvent(message=message, kind=type(exc).__name__))
    _finish(run, "failed", message)


def _finish(run: Run, status: str, reason: str | None) -> None:
    run.events.emit(RunFinished(status=status, reason=reason))  # type: ignore[arg-type]
    run.finish(status, reason)  # type: ignore[arg-type]
