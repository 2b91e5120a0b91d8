"""Runs the server starts: each one an asyncio task in the server's event loop.

``start`` answers as soon as the run exists (``runner.observing_runs`` names it) while the
protocol goes on in the background; at most ``max_runs`` run at once (one more is refused
rather than queued, so every id handed out is a run that is really working). The slot is
taken before the first ``await`` and given back when the task ends, so requests arriving
together cannot all pass the check. ``cancel`` cancels the task, which the runner records
as an interrupted run that ``resume`` can continue. What a request may choose is
``protocols.served``; the protocols are the library's own ``*_async`` calls.
"""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from dataclasses import dataclass, field
from typing import Any

from assay.config import Settings
from assay.errors import AssayError, BadInputError, UserError
from assay.protocols.launch import RESUMABLE, RESUMED_SETTINGS, StartRun, resume_protocol
from assay.protocols.runner import observing_runs
from assay.protocols.served import ServedChoices
from assay.store.runs import Run, RunStore

START_TIMEOUT_S = 30.0


class TooManyRuns(AssayError):
    """The server already runs its limit of concurrent runs."""


class RunNotActive(UserError):
    """The run is not one this server is running (so it cannot be cancelled here)."""


@dataclass
class RunManager:
    """The runs this server started and still runs, by run id."""

    settings: Settings
    max_runs: int = 4
    offered: ServedChoices | None = None
    """What requests may pick (None: only what ``settings`` configure)."""
    tasks: dict[str, asyncio.Task[object]] = field(default_factory=dict)
    working: int = 0
    """Slots taken: runs starting or working (ask's hand-over run shares its task's slot)."""
    choices: ServedChoices = field(init=False)

    def __post_init__(self) -> None:
        self.choices = self.offered or ServedChoices.offered(self.settings)

    @property
    def store(self) -> RunStore:
        return RunStore(self.settings.home, fsync=self.settings.fsync == "always")

    def is_active(self, run_id: str) -> bool:
        task = self.tasks.get(run_id)
        return task is not None and not task.done()

    async def start(self, request: StartRun) -> str:
        served = self.choices.resolve(request, self.settings)
        return await self._launch(served.call(request))

    async def resume(self, run_id: str) -> str:
        info = self.store.open(run_id).info
        if info.protocol not in RESUMABLE:
            raise BadInputError(f"a {info.protocol} run cannot be resumed")
        if info.effective_status() == "running" or self.is_active(run_id):
            raise BadInputError(f"run {run_id} is still running")
        recorded = {k: info.config[k] for k in RESUMED_SETTINGS if k in info.config}
        settings = Settings.model_validate({**self.settings.model_dump(), **recorded})
        self.choices.check_recorded(settings, self.settings)
        return await self._launch(resume_protocol(info.protocol, run_id, settings))

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
        """Start ``call`` as a task; its id once its run exists (``runner.observing_runs``)."""
        self.tasks = {run_id: t for run_id, t in self.tasks.items() if not t.done()}
        if self.working >= self.max_runs:
            call.close()
            raise TooManyRuns(f"{self.max_runs} runs are already working; try again later")
        self.working += 1  # before any await: the check and the taking are one step
        started: asyncio.Future[str] = asyncio.get_running_loop().create_future()
        holder: list[asyncio.Task[object]] = []

        def observe(run: Run) -> None:
            self.tasks[run.id] = holder[0]  # ask's hand-over run is the same task
            if not started.done():
                started.set_result(run.id)

        with observing_runs(observe):
            task: asyncio.Task[object] = asyncio.create_task(call)  # copies the context
        holder.append(task)
        task.add_done_callback(self._release)
        waited: set[asyncio.Future[Any]] = {started, task}
        await asyncio.wait(waited, timeout=START_TIMEOUT_S, return_when=asyncio.FIRST_COMPLETED)
        if started.done():
            return started.result()
        error = task.exception() if task.done() and not task.cancelled() else None
        if error is not None:
            raise error  # a run that could not start, e.g. an unknown model provider
        task.cancel()
        raise BadInputError("the run did not start")

    def _release(self, task: asyncio.Task[object]) -> None:
        """Give the task's slot back. A run's error is in its run.json and event log; it
        is read here so that asyncio does not log it as lost."""
        self.working -= 1
        if not task.cancelled():
            task.exception()
