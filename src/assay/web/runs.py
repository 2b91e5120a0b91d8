"""Runs the server starts: each one in a thread with its own event loop (``web.worker``).

``start`` answers as soon as the run exists (``runner.observing_runs`` names it) while the
protocol goes on in its thread; at most ``max_runs`` run at once (one more is refused
rather than queued, so every id handed out is a run that is really working). The slot is
taken before the first ``await`` and given back when the run's thread ends, so requests
arriving together cannot all pass the check. ``cancel`` cancels the run's task, which the
runner records as an interrupted run that ``resume`` can continue (once the run's thread
has closed: a page shows the end as soon as it is recorded). What a request may
choose is ``protocols.served``; both go through ``protocols.registry``.
"""

from __future__ import annotations

import asyncio
import threading
from dataclasses import dataclass, field

from fastapi import Request

from assay.config import Settings
from assay.errors import AssayError, BadInputError, UserError
from assay.protocols.contract import RunEnv
from assay.protocols.launch import RESUMED_SETTINGS, StartRun
from assay.protocols.registry import resumable, resume_protocol
from assay.protocols.served import ServedChoices
from assay.store.runs import RunStore, load_info
from assay.web.worker import RunCall, RunWorker

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
    workers: dict[str, RunWorker] = field(default_factory=dict)
    """By run id (ask's hand-over run shares its worker, and its slot)."""
    _slots: list[RunWorker] = field(default_factory=list)
    _lock: threading.Lock = field(default_factory=threading.Lock)
    """Guards ``workers``, which worker threads add to."""
    choices: ServedChoices = field(init=False)

    def __post_init__(self) -> None:
        self.choices = self.offered or ServedChoices.offered(self.settings)

    @property
    def store(self) -> RunStore:
        return RunStore(self.settings.home, fsync=self.settings.fsync == "always")

    @property
    def working(self) -> int:
        """Slots taken: runs starting or working."""
        self._slots = [w for w in self._slots if not w.finished]
        return len(self._slots)

    def is_active(self, run_id: str) -> bool:
        worker = self.workers.get(run_id)
        return worker is not None and not worker.finished

    async def start(self, request: StartRun) -> str:
        served = self.choices.resolve(request, self.settings)
        return await self._launch(lambda: served.call(request))

    async def resume(self, run_id: str) -> str:
        info = self.store.open(run_id).info
        if not resumable(info.protocol):
            raise BadInputError(f"a {info.protocol} run cannot be resumed")
        if info.effective_status() == "running":
            raise BadInputError(f"run {run_id} is still running")
        await self._closed(run_id)
        recorded = {k: info.config[k] for k in RESUMED_SETTINGS if k in info.config}
        settings = Settings.model_validate({**self.settings.model_dump(), **recorded})
        self.choices.check_recorded(settings, self.settings)
        return await self._launch(lambda: resume_protocol(info.protocol, run_id, RunEnv(settings)))

    def cancel(self, run_id: str) -> None:
        worker = self.workers.get(run_id)
        if worker is None or worker.finished or self._ended(run_id):
            raise RunNotActive(f"run {run_id} is not running in this server")
        worker.cancel()

    def _ended(self, run_id: str) -> bool:
        """The run has recorded its end. Its thread may still be closing (a thread job it
        was waiting for, its event loop), which a page that shows the end must not wait for:
        a cancel is then refused and a resume waits for the closing (``_closed``)."""
        return load_info(self.store.root / run_id).effective_status() != "running"

    async def _closed(self, run_id: str) -> None:
        worker = self.workers.get(run_id)
        if worker is None or worker.finished:
            return
        ended = asyncio.shield(asyncio.wrap_future(worker.ended))  # a timeout leaves it be
        try:
            await asyncio.wait_for(ended, START_TIMEOUT_S)
        except TimeoutError:
            raise BadInputError(f"run {run_id} is still closing; try again later") from None

    async def close(self) -> None:
        """Cancel every run still working (each ends as interrupted) and wait for them."""
        working = [w for w in self._slots if not w.finished]
        for worker in working:
            worker.cancel()
        await asyncio.gather(*(asyncio.wrap_future(w.ended) for w in working))

    async def _launch(self, call: RunCall) -> str:
        """Start ``call`` in its own worker; its id once its run exists."""
        with self._lock:
            self.workers = {run_id: w for run_id, w in self.workers.items() if not w.finished}
        if self.working >= self.max_runs:
            raise TooManyRuns(f"{self.max_runs} runs are already working; try again later")
        worker = RunWorker(call, on_run=self._adopt)
        self._slots.append(worker)  # before any await: the check and the taking are one step
        worker.start()
        try:
            return await asyncio.wait_for(asyncio.wrap_future(worker.first_run), START_TIMEOUT_S)
        except TimeoutError:
            worker.cancel()
            raise BadInputError("the run did not start") from None

    def _adopt(self, run_id: str, worker: RunWorker) -> None:
        """Called in the worker's thread."""
        with self._lock:
            self.workers[run_id] = worker


def manager(request: Request) -> RunManager:
    """The app's run manager (every route reads runs through it)."""
    found: RunManager = request.app.state.runs
    return found
