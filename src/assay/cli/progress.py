"""A live progress line for long runs: phase, pages read, claims, the latest event.

Shown on stderr only when it is a terminal and ``--quiet``/``--json`` are off; every
update comes from the run's event log, so the display cannot disagree with the files.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from rich.live import Live
from rich.text import Text

from assay.cli.output import err_console, plain
from assay.events import (
    ClaimCreated,
    ErrorEvent,
    Event,
    FullResearchRequested,
    PhaseFinished,
    PhaseStarted,
    ToolOpenUrl,
    WarningEvent,
    event_record,
)
from assay.store.eventlog import Listener
from assay.timeline import describe


class Progress:
    def __init__(self) -> None:
        self.phase = "starting"
        self.pages = 0
        self.claims = 0
        self.last = ""
        self.live = Live(self.render(), console=err_console, refresh_per_second=8, transient=True)

    def render(self) -> Text:
        return Text(
            f"{self.phase:<12} pages {self.pages:>3}  claims {self.claims:>3}  {self.last[:70]}",
            style="cyan",
        )

    def __call__(self, event: Event) -> None:
        if isinstance(event, PhaseStarted):
            self.phase = event.phase
        elif isinstance(event, ToolOpenUrl):
            self.pages += 1
        elif isinstance(event, ClaimCreated):
            self.claims += 1
        text = plain(describe(event_record(event)).text)
        if isinstance(event, PhaseFinished | WarningEvent | ErrorEvent | FullResearchRequested):
            self.live.console.print(text, style="dim", markup=False)
        self.last = text
        self.live.update(self.render())


@contextmanager
def progress(enabled: bool) -> Iterator[Listener | None]:
    if not enabled or not err_console.is_terminal:
        yield print_search_warnings
        return
    display = Progress()
    with display.live:
        yield display


def print_search_warnings(event: Event) -> None:
    """Without a live display, still tell the user that some searches failed."""
    if isinstance(event, WarningEvent) and event.code == "search_partial":
        err_console.print(plain(f"warning: {event.message}"), markup=False, soft_wrap=True)
