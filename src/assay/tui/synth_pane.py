"""The panel of a search-synth run: agents, phase and verdict matrix (see protocol_panes)."""

from __future__ import annotations

from dataclasses import dataclass, field

from rich.text import Text
from textual.app import ComposeResult
from textual.widget import Widget
from textual.widgets import DataTable, Static

from assay.errors import IntegrityError
from assay.events import Event, PhaseFinished, PhaseStarted, Signal
from assay.protocols.synth.matrix import VERDICTS, FactCheck, PanelState, legacy_panel, parse_panel
from assay.store.runs import REPORT_FILE, SYNTH_STATE_FILE
from assay.tui.follow import RunDelta
from assay.tui.panes import RunPane, table_cells


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
    text_files = (SYNTH_STATE_FILE, REPORT_FILE)
    """synth.json holds the matrix; report.md is read only for a run older than it."""
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
        self.has_state = False  # the run has synth.json: its report.md is never parsed

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
        return table_cells(self.query_one("#panel-agents", DataTable))

    def matrix_rows(self) -> list[tuple[str, ...]]:
        return table_cells(self.query_one("#panel-matrix", DataTable))

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
        self.has_state = False
        self.query_one("#panel-agents", DataTable).clear()
        self.query_one("#panel-matrix", DataTable).clear()
        self.query_one("#panel-phase", Static).update("phase: not started")
        self.query_one("#panel-matrix-title", Static).update(
            "verdict matrix (checker → author): no fact-checks yet"
        )

    async def apply(self, delta: RunDelta) -> None:
        agents_changed = False
        for event in delta.events:
            agents_changed |= self._take(event)
        state = self._state(delta)
        if state is not None:
            self.fact_checks = list(state.checks)
            if state.chief:
                self.chief = state.chief
                self._agent(self.chief).roles.add("chief author")
            for check in self.fact_checks:
                self._agent(check.checker).roles.add("fact-checker")
                self._agent(check.author)
            self._show_matrix()
            agents_changed = True
        if agents_changed:
            self._show_agents()
        self.query_one("#panel-phase", Static).update(Text(self.phase_line))

    def _state(self, delta: RunDelta) -> PanelState | None:
        """The panel's state when synth.json (or, for an older run, report.md) changed."""
        text = delta.texts.get(SYNTH_STATE_FILE)
        if text is not None:
            self.has_state = True
            try:
                return parse_panel(text)
            except IntegrityError as exc:
                self.notify(str(exc), severity="warning")
                return None
        if REPORT_FILE in delta.texts and not self.has_state:
            return legacy_panel(delta.texts[REPORT_FILE] or "")
        return None

    def _agent(self, name: str) -> AgentState:
        return self.agents.setdefault(name, AgentState(name))

    def _take(self, event: Event) -> bool:
        """Fold one event in; True when the agents table changed."""
        if isinstance(event, PhaseStarted | PhaseFinished):
            name = event.phase
            shown = _PHASE_NAMES.get(name, name)
            detail = f" ({event.detail})" if event.detail else ""
            finished = isinstance(event, PhaseFinished)
            self.phase = f"{shown} {'finished' if finished else 'running'}{detail}"
            if finished and name == "phase2":
                self.phase += " — Phase 3: chief author writing"
            return False
        if not isinstance(event, Signal):
            return False
        signal, agent, detail = event.signal, event.agent, event.detail or ""
        if signal == "[DONE]" or (signal in ("[MISMATCH]", "[INCOMPLETE]") and not agent):
            self.ending = signal
            if signal == "[DONE]":
                self.phase = "Phase 3: final response written"
        if not agent:
            return False
        state = self._agent(agent)
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
