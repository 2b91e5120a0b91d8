"""The app's one screen: header, banner, the panes as tabs, a status line, the key footer."""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.message import Message
from textual.screen import Screen
from textual.widgets import Footer, Header, Static, TabbedContent, TabPane

from assay.tui.panes import RunPane
from assay.tui.widgets import Banner, RunsPane

CSS = """
#tabs { height: 1fr; }
#banner { display: none; height: auto; padding: 0 1; background: $warning 35%; }
#status { height: 1; padding: 0 1; background: $panel; }
#claims-table { height: 1fr; }
#claim-detail { height: auto; max-height: 8; padding: 0 1; }
#phases { height: auto; padding: 0 1; }
NewRunScreen, HelpScreen { align: center middle; }
#new-run, #help { width: 80; height: auto; max-height: 90%; padding: 1 2;
                  border: thick $accent; background: $surface; }
#help { padding: 0 2; }
#mode-row { height: auto; }
#mode-row Label { padding: 1 1; }
"""


class MainScreen(Screen[None]):
    """Keys act on the app (``app.*`` actions); each pane class adds its own key."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("q", "app.quit", "quit"),
        Binding("r", "app.show_pane('runs')", "runs"),
        Binding("n", "app.new_run", "new run"),
        Binding("tab", "app.cycle_pane(1)", "panes"),
        Binding("shift+tab", "app.cycle_pane(-1)", "previous pane", show=False),
        Binding("question_mark", "app.help", "help"),
    ]

    class Ready(Message):
        """The panes exist: the app may open a run and start polling."""

    def __init__(self, panes: Sequence[type[RunPane]]) -> None:
        super().__init__()
        self.pane_classes = panes

    def on_mount(self) -> None:
        self.post_message(self.Ready())

    def compose(self) -> ComposeResult:
        yield Header()
        yield Banner(id="banner")
        with TabbedContent(id="tabs", initial="runs"):
            with TabPane("Runs", id="runs"):
                yield RunsPane()
            for cls in self.pane_classes:
                with TabPane(cls.pane_title, id=cls.pane_id):
                    yield cls()
        yield Static("no run open — r: runs, n: new run, ?: help", id="status")
        yield Footer()
