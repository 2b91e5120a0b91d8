"""The directions of an ``assay deep`` run, live from its log (see protocol_panes)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from rich.text import Text
from textual.app import ComposeResult
from textual.widget import Widget
from textual.widgets import DataTable, Static

from assay.events import (
    DeepDirectionScored,
    DeepEscalation,
    DeepSearchMethod,
    Event,
    PhaseFinished,
    PhaseStarted,
    WarningEvent,
)
from assay.tui.follow import RunDelta
from assay.tui.panes import RunPane, table_cells

PASS_SCORE = 6.0  # below it (or with a failed check) a deep direction is escalated
_DIRECTION_IN_WARNING = re.compile(r"^direction (\d+)\b")


@dataclass
class DirectionState:
    """What the log says about one direction of a deep run."""

    number: int
    name: str
    status: str = "pending"  # running, done, crashed
    score: float | None = None
    checks: dict[str, bool] = field(default_factory=dict)
    attempt: int = 1
    escalated: str | None = None  # the escalation's reason
    insufficient: bool = False

    def cells(self) -> tuple[str | Text, ...]:
        passed = [k for k, ok in self.checks.items() if ok]
        failed = [k for k, ok in self.checks.items() if not ok]
        if self.score is None:
            score: str | Text = "—"
        else:
            style = "green" if self.score >= PASS_SCORE else "yellow"
            score = Text(f"{self.score:.1f}" + (" (retry)" if self.attempt > 1 else ""), style)
        status_style = {"running": "cyan", "crashed": "red", "done": "green"}
        return (
            str(self.number),
            self.name,
            score,
            f"{len(passed)}/{len(self.checks)}" if self.checks else "—",
            ", ".join(failed) or ("none" if self.checks else "—"),
            Text("yes", style="yellow") if self.escalated else "no",
            Text("yes", style="red") if self.insufficient else "no",
            Text(self.status, style=status_style.get(self.status, "dim")),
        )


class DirectionsPane(RunPane):
    """A deep run's search method and one row per direction, updated as events arrive."""

    pane_id = "directions"
    pane_title = "Directions"
    key = "d"
    protocols = frozenset({"deep"})
    COLUMNS = ("#", "direction", "score", "passed", "failed", "escalated", "insufficient", "status")
    DEFAULT_CSS = """
    DirectionsPane #search-method { height: auto; padding: 0 1; }
    DirectionsPane #directions-table { height: 1fr; }
    DirectionsPane #direction-detail { height: auto; max-height: 6; padding: 0 1; }
    """

    def __init__(self) -> None:
        super().__init__()
        self.method_line = ""
        self.directions: dict[int, DirectionState] = {}

    def compose(self) -> ComposeResult:
        yield Static("search method: not chosen yet", id="search-method")
        table: DataTable[str | Text] = DataTable(id="directions-table", cursor_type="row")
        for column in self.COLUMNS:
            table.add_column(column, key=column)
        yield table
        yield Static("", id="direction-detail")

    def focus_target(self) -> Widget:
        return self.query_one(DataTable)

    def rows(self) -> list[tuple[str, ...]]:
        """The plain text of every row shown, for tests."""
        return table_cells(self.query_one(DataTable))

    async def reset(self) -> None:
        self.method_line = ""
        self.directions.clear()
        self.query_one(DataTable).clear()
        self.query_one("#search-method", Static).update("search method: not chosen yet")
        self.query_one("#direction-detail", Static).update("")

    async def apply(self, delta: RunDelta) -> None:
        changed: set[int] = set()
        for event in delta.events:
            number = self._take(event)
            if number is not None:
                changed.add(number)
        table: DataTable[str | Text] = self.query_one(DataTable)
        for number in sorted(changed):
            cells = self.directions[number].cells()
            key = str(number)
            if key in table.rows:
                for column, value in zip(self.COLUMNS, cells, strict=True):
                    table.update_cell(key, column, value)
            else:
                table.add_row(*cells, key=key)
        if self.method_line:
            self.query_one("#search-method", Static).update(Text(self.method_line))

    def _direction(self, number: int, name: str | None = None) -> DirectionState:
        state = self.directions.get(number)
        if state is None:
            state = self.directions[number] = DirectionState(number, name or "?")
        elif name:
            state.name = name
        return state

    def _take(self, event: Event) -> int | None:
        """Fold one event into the state; the number of the direction it changed, if any."""
        state: DirectionState | None = None
        if isinstance(event, DeepSearchMethod):
            self.method_line = f"search method: {event.method or 'none'} — {event.evidence}"
            if event.tried:
                self.method_line += f"  (tried: {'; '.join(event.tried)})"
        elif isinstance(event, PhaseStarted | PhaseFinished) and event.phase == "worker":
            match = re.match(r"direction (\d+): (.*?)(?:; score [\d.]+)?$", str(event.detail))
            if match:
                state = self._direction(int(match[1]), match[2])
                if state.status != "crashed":
                    state.status = "running" if isinstance(event, PhaseStarted) else "done"
        elif isinstance(event, DeepDirectionScored):
            state = self._direction(event.direction, event.name)
            state.score = event.score
            state.checks = dict(event.checks)
            state.attempt = event.attempt
        elif isinstance(event, DeepEscalation):
            state = self._direction(event.direction, event.name)
            state.escalated = event.reason or "escalated"
        elif isinstance(event, WarningEvent) and event.code in ("insufficient_data", "worker"):
            match = _DIRECTION_IN_WARNING.match(event.message)
            state = self._direction(int(match[1])) if match else None
            if state is not None:
                if event.code == "insufficient_data":
                    state.insufficient = True
                else:
                    state.status = "crashed"
        return state.number if state is not None else None

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        key = event.row_key.value
        state = self.directions.get(int(key)) if key and key.isdigit() else None
        if state is None:
            return
        detail = Text(f"direction {state.number}: {state.name}")
        if state.escalated:
            detail.append(f"\nescalated: {state.escalated}", style="yellow")
        if state.insufficient:
            detail.append("\ninsufficient data after the retry", style="red")
        self.query_one("#direction-detail", Static).update(detail)
