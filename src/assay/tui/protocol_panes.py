"""Protocol views: the directions of an ``assay deep`` run and the panel of a search-synth run.

``DirectionsPane`` (deep runs) follows the run log: the search method chosen in Phase 0,
then one row per direction — its worker's phase events, its score and four checks
(``deep.direction_scored``; the retry's score replaces the first after an escalation),
``deep.escalation``, and the ``insufficient_data`` / crashed-worker warnings.

``PanelPane`` (synth runs) shows the agents with the roles their signals reveal
([PHASE1_DONE]: searcher, [PHASE2_DONE]: fact-checker, [DONE]: chief author) and their
last signal, the current phase, and the verdict matrix: for each checker → author pair,
the VERIFIED / FALSE / UNVERIFIABLE counts of report.md's "### A Fact-Check of B" table,
re-read whenever report.md is rewritten (the log carries no per-row verdicts).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.widget import Widget
from textual.widgets import DataTable, Static

from assay.protocols.synth.matrix import VERDICTS, FactCheck, parse_fact_checks
from assay.store.runs import REPORT_FILE
from assay.tui.follow import RunDelta
from assay.tui.panes import BASE_PANES, RunPane

PASS_SCORE = 6.0  # below it (or with a failed check) a deep direction is escalated
_DIRECTION_IN_WARNING = re.compile(r"^direction (\d+)\b")
_CHIEF = re.compile(r"^\*\*Chief Author:\*\*\s*(?P<name>.+?)\s*$", re.MULTILINE)


def _table_cells(table: DataTable[Any]) -> list[tuple[str, ...]]:
    rows = []
    for index in range(table.row_count):
        rows.append(
            tuple(str(c.plain if isinstance(c, Text) else c) for c in table.get_row_at(index))
        )
    return rows


# -- deep: directions ---------------------------------------------------------------------


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
        return _table_cells(self.query_one(DataTable))

    async def reset(self) -> None:
        self.method_line = ""
        self.directions.clear()
        self.query_one(DataTable).clear()
        self.query_one("#search-method", Static).update("search method: not chosen yet")
        self.query_one("#direction-detail", Static).update("")

    async def apply(self, delta: RunDelta) -> None:
        changed: set[int] = set()
        for record in delta.events:
            number = self._take(str(record.get("type")), record.get("data") or {})
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

    def _direction(self, number: Any, name: Any = None) -> DirectionState | None:
        if not isinstance(number, int):
            return None
        state = self.directions.get(number)
        if state is None:
            state = self.directions[number] = DirectionState(number, str(name or "?"))
        elif name:
            state.name = str(name)
        return state

    def _take(self, kind: str, data: dict[str, Any]) -> int | None:
        """Fold one event into the state; the number of the direction it changed, if any."""
        state: DirectionState | None = None
        if kind == "deep.search_method":
            method = data.get("method") or "none"
            self.method_line = f"search method: {method} — {data.get('evidence', '')}"
            tried = data.get("tried") or []
            if tried:
                self.method_line += f"  (tried: {'; '.join(str(t) for t in tried)})"
        elif kind in ("phase.started", "phase.finished") and data.get("phase") == "worker":
            match = re.match(r"direction (\d+): (.*?)(?:; score [\d.]+)?$", str(data.get("detail")))
            if match:
                state = self._direction(int(match[1]), match[2])
                if state is not None and state.status != "crashed":
                    state.status = "running" if kind == "phase.started" else "done"
        elif kind == "deep.direction_scored":
            state = self._direction(data.get("direction"), data.get("name"))
            if state is not None:
                state.score = float(data.get("score", 0.0))
                checks = data.get("checks") or {}
                state.checks = {str(k): bool(v) for k, v in checks.items()}
                state.attempt = int(data.get("attempt", 1))
        elif kind == "deep.escalation":
            state = self._direction(data.get("direction"), data.get("name"))
            if state is not None:
                state.escalated = str(data.get("reason") or "escalated")
        elif kind == "warning" and data.get("code") in ("insufficient_data", "worker"):
            match = _DIRECTION_IN_WARNING.match(str(data.get("message", "")))
            state = self._direction(int(match[1])) if match else None
            if state is not None:
                if data.get("code") == "insufficient_data":
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


# -- synth: the panel ---------------------------------------------------------------------


@dataclass
class AgentState:
    name: str
    roles: set[str] = field(default_factory=set)
    status: str = "—"
    detail: str = ""


_SIGNAL_ROLE = {
    "[PHASE1_DONE]": "searcher",
    "[PHASE2_DONE]": "fact-checker",
    "[DONE]": "chief author",
}
_ROLE_ORDER = ("searcher", "fact-checker", "chief author")
_SIGNAL_STYLE = {
    "[BLOCK]": "red",
    "[MISMATCH]": "red",
    "[INCOMPLETE]": "yellow",
    "[POKE]": "yellow",
}
_PHASE_NAMES = {"phase1": "Phase 1: responses", "phase2": "Phase 2: fact-checks"}


class PanelPane(RunPane):
    """A search-synth run's agents, current phase and checker → author verdict matrix."""

    pane_id = "panel"
    pane_title = "Panel"
    key = "m"
    protocols = frozenset({"synth"})
    text_files = (REPORT_FILE,)
    AGENT_COLUMNS = ("agent", "roles", "last signal", "detail")
    MATRIX_COLUMNS = ("checker", "author", *VERDICTS)
    DEFAULT_CSS = """
    PanelPane #panel-phase { height: auto; padding: 0 1; }
    PanelPane #panel-agents { height: auto; max-height: 12; }
    PanelPane #panel-matrix-title { height: 1; padding: 0 1; margin-top: 1; }
    PanelPane #panel-matrix { height: 1fr; }
    """

    def __init__(self) -> None:
        super().__init__()
        self.agents: dict[str, AgentState] = {}
        self.phase = "not started"
        self.ending: str | None = None  # [DONE], or the halting signal
        self.fact_checks: list[FactCheck] = []
        self.chief: str | None = None

    def compose(self) -> ComposeResult:
        yield Static("phase: not started", id="panel-phase")
        agents: DataTable[str | Text] = DataTable(id="panel-agents", cursor_type="row")
        agents.add_columns(*self.AGENT_COLUMNS)
        yield agents
        yield Static(
            "verdict matrix (checker → author): no fact-checks yet", id="panel-matrix-title"
        )
        matrix: DataTable[str | Text] = DataTable(id="panel-matrix", cursor_type="row")
        matrix.add_columns(*self.MATRIX_COLUMNS)
        yield matrix

    def focus_target(self) -> Widget:
        return self.query_one("#panel-matrix")

    @property
    def matrix(self) -> dict[tuple[str, str], dict[str, int]]:
        """(checker, author) → verdict counts, as report.md last showed them."""
        return {(f.checker, f.author): dict(f.counts) for f in self.fact_checks}

    def agent_rows(self) -> list[tuple[str, ...]]:
        return _table_cells(self.query_one("#panel-agents", DataTable))

    def matrix_rows(self) -> list[tuple[str, ...]]:
        return _table_cells(self.query_one("#panel-matrix", DataTable))

    @property
    def phase_line(self) -> str:
        line = f"phase: {self.phase}"
        if self.ending:
            line += f"  ·  ended {self.ending}"
        return line

    async def reset(self) -> None:
        self.agents.clear()
        self.phase, self.ending, self.chief = "not started", None, None
        self.fact_checks = []
        self.query_one("#panel-agents", DataTable).clear()
        self.query_one("#panel-matrix", DataTable).clear()
        self.query_one("#panel-phase", Static).update("phase: not started")
        self.query_one("#panel-matrix-title", Static).update(
            "verdict matrix (checker → author): no fact-checks yet"
        )

    async def apply(self, delta: RunDelta) -> None:
        agents_changed = False
        for record in delta.events:
            agents_changed |= self._take(str(record.get("type")), record.get("data") or {})
        if REPORT_FILE in delta.texts:
            text = delta.texts[REPORT_FILE] or ""
            self.fact_checks = parse_fact_checks(text)
            chief = _CHIEF.search(text)
            if chief:
                self.chief = chief["name"]
                self._agent(self.chief).roles.add("chief author")
            for check in self.fact_checks:
                self._agent(check.checker).roles.add("fact-checker")
                self._agent(check.author)
            self._show_matrix()
            agents_changed = True
        if agents_changed:
            self._show_agents()
        self.query_one("#panel-phase", Static).update(Text(self.phase_line))

    def _agent(self, name: str) -> AgentState:
        return self.agents.setdefault(name, AgentState(name))

    def _take(self, kind: str, data: dict[str, Any]) -> bool:
        """Fold one event in; True when the agents table changed."""
        if kind in ("phase.started", "phase.finished"):
            name = str(data.get("phase"))
            shown = _PHASE_NAMES.get(name, name)
            detail = f" ({data['detail']})" if data.get("detail") else ""
            progress = "running" if kind == "phase.started" else "finished"
            self.phase = f"{shown} {progress}{detail}"
            if kind == "phase.finished" and name == "phase2":
                self.phase += " — Phase 3: chief author writing"
            return False
        if kind != "signal":
            return False
        signal = str(data.get("signal"))
        agent, detail = data.get("agent"), str(data.get("detail") or "")
        if signal == "[DONE]" or (signal in ("[MISMATCH]", "[INCOMPLETE]") and not agent):
            self.ending = signal
            if signal == "[DONE]":
                self.phase = "Phase 3: final response written"
        if not agent:
            return False
        state = self._agent(str(agent))
        state.status, state.detail = signal, detail
        if signal in _SIGNAL_ROLE:
            state.roles.add(_SIGNAL_ROLE[signal])
        return True

    def _show_agents(self) -> None:
        table: DataTable[str | Text] = self.query_one("#panel-agents", DataTable)
        table.clear()
        for state in self.agents.values():
            roles = ", ".join(r for r in _ROLE_ORDER if r in state.roles) or "—"
            status = Text(state.status, style=_SIGNAL_STYLE.get(state.status, "green"))
            detail = state.detail if len(state.detail) <= 80 else state.detail[:79] + "…"
            table.add_row(state.name, roles, status, detail, key=state.name)

    def _show_matrix(self) -> None:
        table: DataTable[str | Text] = self.query_one("#panel-matrix", DataTable)
        table.clear()
        totals = dict.fromkeys(VERDICTS, 0)
        for check in self.fact_checks:
            if check.blocked is not None and not any(check.counts.values()):
                blocked = Text(f"[BLOCK] {check.blocked}", style="red")
                table.add_row(check.checker, check.author, blocked, "", "")
                continue
            for verdict in VERDICTS:
                totals[verdict] += check.counts[verdict]
            table.add_row(
                check.checker,
                check.author,
                Text(str(check.counts["VERIFIED"]), style="green"),
                Text(str(check.counts["FALSE"]), style="red"),
                Text(str(check.counts["UNVERIFIABLE"]), style="dim"),
            )
        title = "verdict matrix (checker → author): " + (
            "  ".join(f"{v} {totals[v]}" for v in VERDICTS)
            if self.fact_checks
            else "no fact-checks yet"
        )
        self.query_one("#panel-matrix-title", Static).update(title)


PROTOCOL_PANES: tuple[type[RunPane], ...] = (DirectionsPane, PanelPane)
DEFAULT_PANES: tuple[type[RunPane], ...] = (*BASE_PANES, *PROTOCOL_PANES)
