"""What ``assay batch`` shows while it works: a live bar on a terminal, plain lines otherwise.

The bar counts done / failed / running questions, the ETA and the model tokens spent so far
(from the runs' usage events); each finished question also gets one line, so a log of a
batch run without a terminal says the same.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

from assay.batch import BatchEvents, BatchJob, ResultRow
from assay.cli.output import err_console, plain
from assay.events import Event, Usage


class BatchDisplay:
    """Counts a batch's questions and tokens; renders them as a bar or as lines."""

    def __init__(self, total: int, *, live: bool) -> None:
        self.total = total
        self.done = self.failed = self.running = self.tokens = 0
        self.progress: Progress | None = None
        if live:
            self.progress = Progress(
                TextColumn("[bold]batch"),
                BarColumn(),
                TextColumn("{task.completed}/{task.total}"),
                TextColumn("{task.fields[counts]}"),
                TimeElapsedColumn(),
                TextColumn("ETA"),
                TimeRemainingColumn(),
                console=err_console,
                transient=False,
            )
            self.task = self.progress.add_task("batch", total=total, counts=self._counts())

    def _counts(self) -> str:
        return f"done {self.done} failed {self.failed} running {self.running} tokens {self.tokens}"

    def _refresh(self, advance: int = 0) -> None:
        if self.progress is not None:
            self.progress.update(self.task, advance=advance, counts=self._counts())

    def started(self, job: BatchJob) -> None:
        self.running += 1
        self._refresh()

    def heard(self, job_id: str, event: Event) -> None:
        if isinstance(event, Usage):
            self.tokens += event.input_tokens + event.output_tokens
            self._refresh()

    def ended(self, row: ResultRow) -> None:
        self.running -= 1
        if row.status == "done":
            self.done += 1
        else:
            self.failed += 1
        finished = self.done + self.failed
        why = f" ({row.reason})" if row.status != "done" and row.reason else ""
        line = (
            f"[{finished}/{self.total}] {row.id}: {row.status}{why} in {row.wall_seconds:.1f}s"
            f" — {row.answer[:80] or '(no answer)'}"
        )
        err_console.print(plain(line), markup=False, highlight=False, soft_wrap=True)
        self._refresh(advance=1)

    def events(self) -> BatchEvents:
        return BatchEvents(started=[self.started], event=[self.heard], ended=[self.ended])


@contextmanager
def batch_display(total: int, *, enabled: bool) -> Iterator[BatchDisplay]:
    display = BatchDisplay(total, live=enabled and err_console.is_terminal)
    if display.progress is None:
        yield display
        return
    with display.progress:
        yield display
