"""Runs the server starts: each one an asyncio task in the server's event loop.

``start`` answers as soon as the run exists (``runner.run_observer`` names it) while the
protocol goes on in the background; at most ``max_runs`` run at once (one more is refused
rather than queued, so every id handed out is a run that is really working). ``cancel``
cancels the task, which the runner records as an interrupted run that ``resume`` can
continue. The protocols are the library's own ``*_async`` calls.
"""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from assay.config import Settings
from assay.errors import AssayError, BadInputError, UserError
from assay.protocols.deep.plan import MAX_DIRECTIONS
from assay.protocols.runner import run_observer
from assay.store.runs import Run, RunStore

Protocol = Literal["research", "ask", "web-research", "deep", "synth"]
PROTOCOLS: tuple[Protocol, ...] = ("research", "ask", "web-research", "deep", "synth")
RESUMABLE = ("research", "ask", "deep")
# What a resumed run keeps from its own settings (as `assay resume` does).
RESUMED_SETTINGS = ("search", "searxng_url", "max_results", "allow_hosts", "model", "base_url",
                    "mcp_command", "mcp_url", "mcp_tool", "mcp_env", "fetch")  # fmt: skip
START_TIMEOUT_S = 30.0


class TooManyRuns(AssayError):
    """The server already runs its limit of concurrent runs."""


class RunNotActive(UserError):
    """The run is not one this server is running (so it cannot be cancelled here)."""


class StartRun(BaseModel):
    """A run to start: the protocol, the question and the common options."""

    model_config = ConfigDict(extra="forbid")

    protocol: Protocol = "research"
    topic: str = Field(min_length=1, max_length=2000, description="The question or topic.")
    search: str | None = Field(None, max_length=64, description="Search provider.")
    searxng_url: str | None = Field(None, max_length=2000)
    model: str | None = Field(None, max_length=200, description="PROVIDER:MODEL.")
    base_url: str | None = Field(None, max_length=2000)
    budget_tokens: int | None = Field(None, ge=1, le=10_000_000)
    budget_time: float | None = Field(None, gt=0, le=86_400)
    sources: int = Field(5, ge=1, le=20, description="research: sources to read.")
    urls: list[str] = Field(default_factory=list, max_length=20, description="web-research")
    keywords: list[str] = Field(default_factory=list, max_length=20, description="web-research")
    depth: Literal["shallow", "medium", "deep"] = "medium"
    max_directions: int = Field(MAX_DIRECTIONS, ge=1, le=MAX_DIRECTIONS, description="deep")

    def settings(self, base: Settings) -> Settings:
        """``base`` with the options this request gives."""
        given = self.model_dump(
            include={"search", "searxng_url", "model", "base_url", "budget_tokens", "budget_time"},
            exclude_none=True,
        )
        if not given:
            return base
        checked = Settings.model_validate({**base.model_dump(), **given})
        return base.model_copy(update={k: getattr(checked, k) for k in given})


@dataclass
class RunManager:
    """The runs this server started and still runs, by run id."""

    settings: Settings
    max_runs: int = 4
    tasks: dict[str, asyncio.Task[object]] = field(default_factory=dict)

    @property
    def store(self) -> RunStore:
        return RunStore(self.settings.home, fsync=self.settings.fsync == "always")

    def active(self) -> list[str]:
        return [run_id for run_id, task in self.tasks.items() if not task.done()]

    def is_active(self, run_id: str) -> bool:
        task = self.tasks.get(run_id)
        return task is not None and not task.done()

    async def start(self, request: StartRun) -> str:
        settings = request.settings(self.settings)
        return await self._launch(_protocol_call(request, settings))

    async def resume(self, run_id: str) -> str:
        info = self.store.open(run_id).info
        if info.protocol not in RESUMABLE:
            raise BadInputError(f"a {info.protocol} run cannot be resumed")
        if info.effective_status() == "running" or self.is_active(run_id):
            raise BadInputError(f"run {run_id} is still running")
        recorded = {k: info.config[k] for k in RESUMED_SETTINGS if k in info.config}
        settings = Settings.model_validate({**self.settings.model_dump(), **recorded})
        return await self._launch(_resume_call(info.protocol, run_id, settings))

    def cancel(self, run_id: str) -> None:
        task = self.tasks.get(run_id)
        if task is None or task.done():
            raise RunNotActive(f"run {run_id} is not running in this server")
        task.cancel()

    async def close(self) -> None:
        """Cancel every run still working (each ends as interrupted) and wait for them."""
        working = [t for t in self.tasks.values() if not t.done()]
        for task in working:
            task.cancel()
        await asyncio.gather(*working, return_exceptions=True)

    async def _launch(self, call: Coroutine[Any, Any, object]) -> str:
        """Start ``call`` as a task; its id once its run exists (``runner.run_observer``)."""
        if len(self.active()) >= self.max_runs:
            call.close()
            raise TooManyRuns(f"{self.max_runs} runs are already working; try again later")
        started: asyncio.Future[str] = asyncio.get_running_loop().create_future()
        holder: list[asyncio.Task[object]] = []

        def observe(run: Run) -> None:
            self.tasks[run.id] = holder[0]  # ask's hand-over run is the same task
            if not started.done():
                started.set_result(run.id)

        token = run_observer.set(observe)
        try:
            task: asyncio.Task[object] = asyncio.create_task(call)  # copies the context
        finally:
            run_observer.reset(token)
        holder.append(task)
        task.add_done_callback(_consume_exception)
        waited: set[asyncio.Future[Any]] = {started, task}
        await asyncio.wait(waited, timeout=START_TIMEOUT_S, return_when=asyncio.FIRST_COMPLETED)
        if started.done():
            return started.result()
        error = task.exception() if task.done() and not task.cancelled() else None
        if error is not None:
            raise error  # a run that could not start, e.g. an unknown model provider
        task.cancel()
        raise BadInputError("the run did not start")


def _consume_exception(task: asyncio.Task[object]) -> None:
    """A run's error is in its run.json and event log; it must not be logged as lost."""
    if not task.cancelled():
        task.exception()


async def _protocol_call(request: StartRun, settings: Settings) -> object:
    topic = request.topic
    if request.protocol == "research":
        from assay.protocols.research import research_async

        return await research_async(topic, settings=settings, sources=request.sources)
    if request.protocol == "ask":
        from assay.protocols.research import ask_async

        return await ask_async(topic, settings=settings)
    if request.protocol == "web-research":
        from assay.protocols.web_research.results import WebResearchRequest
        from assay.protocols.web_research.skill import run_web_research

        checked = WebResearchRequest.build(
            topic, request.urls, request.keywords, request.depth, "summary"
        )
        return await run_web_research(checked, settings)
    if request.protocol == "deep":
        from assay.protocols.deep import deep_research_async

        output = settings.home / "deep-reports"
        output.mkdir(parents=True, exist_ok=True)
        return await deep_research_async(
            topic, settings=settings, max_directions=request.max_directions, output=output,
        )  # fmt: skip
    from assay.protocols.synth import synth_async

    output = settings.home / "synth-output"
    output.mkdir(parents=True, exist_ok=True)
    return await synth_async(topic, settings=settings, output=output)


async def _resume_call(protocol: str, run_id: str, settings: Settings) -> object:
    if protocol == "deep":
        from assay.protocols.deep import deep_resume_async

        return await deep_resume_async(run_id, settings=settings)
    from assay.protocols.research import resume_async

    return await resume_async(run_id, settings=settings)
