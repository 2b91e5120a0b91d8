"""The runs list, the start-a-run and help dialogs, and the escalation banner."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.message import Message
from textual.screen import ModalScreen
from textual.widgets import DataTable, Input, Label, Markdown, Static, Switch

from assay.tui.follow import RunRow

_STATUS_STYLE = {"done": "green", "running": "cyan", "interrupted": "yellow", "failed": "red"}


class RunsPane(Vertical):
    """Every run under the home, newest first; enter opens the highlighted one."""

    class Open(Message):
        """The user chose a run."""

        def __init__(self, run_id: str) -> None:
            super().__init__()
            self.run_id = run_id

    def __init__(self) -> None:
        super().__init__()
        self.rows: list[RunRow] = []

    def compose(self) -> ComposeResult:
        table: DataTable[str | Text] = DataTable(id="runs-table", cursor_type="row")
        table.add_columns("started", "topic", "protocol", "status", "claims", "id")
        yield table
        yield Static("", id="runs-empty")

    def show(self, rows: list[RunRow]) -> None:
        rows = sorted(rows, key=lambda r: r.id, reverse=True)
        if rows == self.rows:
            return
        table: DataTable[str | Text] = self.query_one(DataTable)
        selected = self.selected()
        table.clear()
        for row in rows:
            topic = row.topic if len(row.topic) <= 60 else row.topic[:59] + "…"
            table.add_row(
                row.started,
                topic,
                row.protocol,
                Text(row.status, style=_STATUS_STYLE.get(row.status, "")),
                f"{row.verified}/{row.total}",
                row.id,
                key=row.id,
            )
        if selected in {r.id for r in rows}:
            table.move_cursor(row=table.get_row_index(selected))
        self.rows = rows
        empty = "" if rows else "no runs yet — press n to start one"
        self.query_one("#runs-empty", Static).update(empty)

    def selected(self) -> str | None:
        if not self.rows:
            return None
        row = self.query_one(DataTable).cursor_row
        return self.rows[row].id if 0 <= row < len(self.rows) else None

    @on(DataTable.RowSelected)
    def _chosen(self, event: DataTable.RowSelected) -> None:
        event.stop()
        self.post_message(self.Open(str(event.row_key.value)))


class Banner(Static):
    """One line across the top for what must not be missed (a one-shot escalation)."""

    def say(self, text: str) -> None:
        self.update(Text(text, style="bold"))
        self.display = bool(text)


class NewRunScreen(ModalScreen[tuple[str, str] | None]):
    """Asks for a topic and the mode; dismisses with (mode, topic), or None on escape."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel", "cancel")]

    def compose(self) -> ComposeResult:
        with Vertical(id="new-run"):
            yield Label("Start a run — enter starts it, escape cancels")
            yield Input(placeholder="topic or question", id="topic")
            with Horizontal(id="mode-row"):
                yield Switch(value=True, id="full")
                yield Label("full research (off: ask — a quick answer that may escalate)")

    def on_mount(self) -> None:
        self.query_one(Input).focus()

    @on(Input.Submitted)
    def _submit(self, event: Input.Submitted) -> None:
        topic = event.value.strip()
        if not topic:
            self.notify("type a topic first", severity="warning")
            return
        mode = "research" if self.query_one(Switch).value else "ask"
        self.dismiss((mode, topic))

    def action_cancel(self) -> None:
        self.dismiss(None)


# One line a key, so the help fits a 24-row terminal; it scrolls (↑ ↓ pgup pgdn) if not.
HELP = """\
# assay tui

- `r` runs list (enter opens a run)
- `n` start a run (research, or ask)
- `f` `p` `c` `o` feed · plan · claims · report of the open run
- `d` directions of a deep run (scores, checks, escalations)
- `m` panel of a search-synth run (agents, verdict matrix)
- `tab` / `shift+tab` next / previous pane
- `?` this help (`esc` closes it)
- `q` quit (a run started here is interrupted; `assay resume` continues it)

The open run is followed live: the panes change as the run writes its files, whether
it runs here or in another process (`assay show RUN --follow` shows the same feed).
"""


class HelpScreen(ModalScreen[None]):
    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape,question_mark,q", "close", "close")]

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="help"):
            yield Markdown(HELP)

    def action_close(self) -> None:
        self.dismiss(None)
