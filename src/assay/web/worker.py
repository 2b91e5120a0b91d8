"""One run of the server in a thread of its own, with an event loop of its own.

Why a thread: a run does synchronous work between its awaits (parsing pages, indexing,
scoring passages). In the server's event loop that work delays every request, so five
runs started together used to hold each other's POST for about a second. In its own
thread a run shares only the GIL with the server, which switches every few milliseconds;
the server's loop stays free to answer, and a POST answers as soon as its run exists.

``first_run`` resolves with the id of the first run the call starts (the runner's
``observing_runs``), or with the error that stopped the call before any run existed (an
unknown model provider: a 400, not a run). ``cancel`` is safe from any thread at any
time: a cancellation asked for before the loop exists is applied when it starts.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable, Coroutine
from concurrent.futures import Future
from typing import Any

from assay.errors import BadInputError
from assay.protocols.runner import observing_runs
from assay.store.runs import Run

RunCall = Callable[[], Coroutine[Any, Any, object]]


class RunWorker:
    """A protocol call running in its own thread and event loop."""

    def __init__(self, call: RunCall, on_run: Callable[[str, RunWorker], None]) -> None:
        self._call = call
        self._on_run = on_run
        self.first_run: Future[str] = Future()
        self.ended: Future[None] = Future()
        self._lock = threading.Lock()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._task: asyncio.Task[object] | None = None
        self._cancel_asked = False
        self._thread = threading.Thread(target=self._run, name="assay-run", daemon=True)

    def start(self) -> None:
        self._thread.start()

    @property
    def finished(self) -> bool:
        return self.ended.done()

    def cancel(self) -> None:
        with self._lock:
            self._cancel_asked = True
            if self._loop is not None and self._task is not None:
                self._loop.call_soon_threadsafe(self._task.cancel)

    def _observe(self, run: Run) -> None:
        self._on_run(run.id, self)  # ask's hand-over run is this worker's too
        if not self.first_run.done():
            self.first_run.set_result(run.id)

    async def _main(self) -> object:
        with self._lock:
            self._loop = asyncio.get_running_loop()
            self._task = asyncio.current_task()
            if self._cancel_asked:
                raise asyncio.CancelledError
        return await self._call()

    def _run(self) -> None:
        error: BaseException | None = None
        try:
            with observing_runs(self._observe):  # asyncio.run's task copies this context
                asyncio.run(self._main())
        except BaseException as exc:  # the run's error is in its run.json
            error = exc  # and event log; here it only answers a POST that has no run yet
        finally:
            if not self.first_run.done():
                if isinstance(error, Exception):
                    self.first_run.set_exception(error)
                else:
                    self.first_run.set_exception(BadInputError("the run did not start"))
            self.ended.set_result(None)
