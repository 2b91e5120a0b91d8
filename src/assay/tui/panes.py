"""The panes that show an open run, and the base class later protocol views plug in through.

A pane is a ``RunPane``: it names its tab (``pane_id``, ``pane_title``), its key, the
protocols it applies to (``None``: every run) and the run files it wants as text
(``text_files``). The app resets every pane when a run is opened and hands each one the
``RunDelta`` of every poll (the first one carries the run's history and its run.json); a
pane keeps whatever state it needs. A deep-research view of
directions and scores, or a search-synth verdict matrix, is one more subclass passed to
``AssayApp(panes=...)`` — nothing else changes.
"""

from __future__ import annotations

import re
from typing import Any, ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widget import Widget
from textual.widgets import DataTable, Markdown, RichLog, Static

from assay.events import PhaseFinished, PhaseStarted
from assay.store.runs import PLAN_FILE, REPORT_FILE, RunInfo
from assay.timeline import TimelineEntry, describe
from assay.tui.follow import RunDelta

LEVEL_STYLE = {"info": "", "good": "green", "warn": "yellow", "bad": "red", "dim": "dim"}
_STATUS_STYLE = {
    "verified": "green",
    "weak": "yellow",
    "contradicted": "red",
    "needs_review": "red",
    "unverified": "dim",
}


class RunPane(Vertical):
    """Base of every per-run pane; see the module docstring."""

    pane_id: ClassVar[str]
    pane_title: ClassVar[str]
    key: ClassVar[str]
    protocols: ClassVar[frozenset[str] | None] = None
    text_files: ClassVar[tuple[str, ...]] = ()

    @classmethod
    def applies_to(cls, info: RunInfo | None) -> bool:
        return cls.protocols is None or (info is not None and info.protocol in cls.protocols)

    def focus_target(self) -> Widget:
        """The widget that takes the keyboard when this pane is shown."""
        return self

    async def reset(self) -> None:
        """A different run was opened: forget the previous one (its first delta follows)."""

    async def apply(self, delta: RunDelta) -> None:
        """Show what changed since the previous poll."""


def feed_line(entry: TimelineEntry) -> Text:
    line = Text.assemble((entry.ts[11:19], "dim"), " ", (f"{entry.kind:<15}", "bold"), " ")
    line.append(entry.text, style=LEVEL_STYLE.get(entry.level, ""))
    return line


class FeedPane(RunPane):
    """Every event of the run as one timeline line, coloured by level; follows the end."""

    pane_id = "feed"
    pane_title = "Feed"
    key = "f"

    def __init__(self) -> None:
        super().__init__()
        self.entries: list[TimelineEntry] = []

    def compose(self) -> ComposeResult:
        yield RichLog(id="feed-log", wrap=True, max_lines=10_000)

    def focus_target(self) -> Widget:
        return self.query_one(RichLog)

    @property
    def lines(self) -> list[str]:
        """The plain text of every line shown, for tests and copy-paste."""
        return [feed_line(e).plain for e in self.entries]

    async def reset(self) -> None:
        self.entries.clear()
        self.query_one(RichLog).clear()

    async def apply(self, delta: RunDelta) -> None:
        for record in delta.records:
            self.add(describe(record))
        for problem in delta.problems:
            self.add(TimelineEntry(-1, "", "problem", problem, "warn"))

    def add(self, entry: TimelineEntry) -> None:
        self.entries.append(entry)
        self.query_one(RichLog).write(feed_line(entry))


def tick_boxes(markdown: str) -> str:
    """Task-list checkboxes as glyphs (the Markdown widget shows ``[x]`` as plain text)."""
    markdown = re.sub(r"(?m)^(\s*[-*+] )\[[xX]\] ", r"\1☑ ", markdown)
    return re.sub(r"(?m)^(\s*[-*+] )\[ \] ", r"\1☐ ", markdown)


class PlanPane(RunPane):
    """plan.md with its checkboxes, and the phases the log says started and finished."""

    pane_id = "plan"
    pane_title = "Plan"
    key = "p"
    text_files = (PLAN_FILE,)

    def __init__(self) -> None:
        super().__init__()
        self.phases: dict[str, str] = {}
        self.text: str | None = None

    def compose(self) -> ComposeResult:
        yield Static("", id="phases")
        yield Markdown("*no plan yet*", id="plan-md")

    def focus_target(self) -> Widget:
        return self.query_one("#plan-md")

    async def reset(self) -> None:
        self.phases.clear()
        self.text = None
        self.query_one("#phases", Static).update("")
        await self.query_one("#plan-md", Markdown).update("*no plan yet*")

    async def apply(self, delta: RunDelta) -> None:
        for event in delta.events:
            if isinstance(event, PhaseStarted | PhaseFinished):
                self.phases[event.phase] = "✓" if isinstance(event, PhaseFinished) else "…"
        if self.phases:
            shown = "  ".join(f"{mark} {name}" for name, mark in self.phases.items())
            self.query_one("#phases", Static).update(Text("phases: " + shown))
        if PLAN_FILE in delta.texts:
            self.text = delta.texts[PLAN_FILE]
            shown_md = tick_boxes(self.text) if self.text else "*no plan yet*"
            await self.query_one("#plan-md", Markdown).update(shown_md)


class ClaimsPane(RunPane):
    """claims.jsonl as a table (id, status, confidence, sources, text); the full claim below."""

    pane_id = "claims"
    pane_title = "Claims"
    key = "c"
    COLUMNS = ("id", "status", "confidence", "sources", "text")

    def __init__(self) -> None:
        super().__init__()
        self.claims: dict[str, dict[str, Any]] = {}

    def compose(self) -> ComposeResult:
        table: DataTable[str | Text] = DataTable(id="claims-table", cursor_type="row")
        for column in self.COLUMNS:
            table.add_column(column, key=column)
        yield table
        yield Static("", id="claim-detail")

    def focus_target(self) -> Widget:
        return self.query_one(DataTable)

    async def reset(self) -> None:
        self.claims.clear()
        self.query_one(DataTable).clear()
        self.query_one("#claim-detail", Static).update("")

    async def apply(self, delta: RunDelta) -> None:
        if delta.claims is None:
            return
        table: DataTable[str | Text] = self.query_one(DataTable)
        fresh = {str(c.get("id")): c for c in delta.claims}
        for gone in set(self.claims) - set(fresh):
            table.remove_row(gone)
        for claim_id, claim in fresh.items():
            cells = _claim_cells(claim)
            if claim_id in self.claims:
                for column, value in zip(self.COLUMNS, cells, strict=True):
                    table.update_cell(claim_id, column, value)
            else:
                table.add_row(*cells, key=claim_id)
        self.claims = fresh

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        claim = self.claims.get(str(event.row_key.value))
        if claim is None:
            return
        detail = Text(str(claim.get("text", "")))
        reason = claim.get("status_reason") or claim.get("reason")
        if reason:
            detail.append(f"\n{claim.get('status')}: {reason}", style="dim")
        for evidence in claim.get("evidence") or []:
            detail.append(f"\n“{evidence.get('quote')}” — {evidence.get('sourceId')}", style="dim")
        self.query_one("#claim-detail", Static).update(detail)


def _claim_cells(claim: dict[str, Any]) -> tuple[str | Text, ...]:
    status = str(claim.get("status", "unverified"))
    text = " ".join(str(claim.get("text", "")).split())
    return (
        str(claim.get("id")),
        Text(status, style=_STATUS_STYLE.get(status, "")),
        str(claim.get("confidence", "")),
        ", ".join(str(s) for s in claim.get("sourceIds") or []),
        text if len(text) <= 100 else text[:99] + "…",
    )


class ReportPane(RunPane):
    """report.md, rendered, once it is written (and again each time it is rewritten)."""

    pane_id = "report"
    pane_title = "Report"
    key = "o"
    text_files = (REPORT_FILE,)
    EMPTY = "*no report yet — it appears here when the run writes report.md*"

    def __init__(self) -> None:
        super().__init__()
        self.text: str | None = None

    def compose(self) -> ComposeResult:
        yield Markdown(self.EMPTY, id="report-md")

    def focus_target(self) -> Widget:
        return self.query_one(Markdown)

    async def reset(self) -> None:
        self.text = None
        await self.query_one(Markdown).update(self.EMPTY)

    async def apply(self, delta: RunDelta) -> None:
        if REPORT_FILE in delta.texts:
            self.text = delta.texts[REPORT_FILE]
            await self.query_one(Markdown).update(self.text or self.EMPTY)


BASE_PANES: tuple[type[RunPane], ...] = (FeedPane, PlanPane, ClaimsPane, ReportPane)
"""The panes of every run; ``protocol_panes.DEFAULT_PANES`` adds the protocol views."""


def table_cells(table: DataTable[Any]) -> list[tuple[str, ...]]:
    """A table's rows as plain strings (what a pane compares before redrawing)."""
    rows = []
    for index in range(table.row_count):
        rows.append(
            tuple(str(c.plain if isinstance(c, Text) else c) for c in table.get_row_at(index))
        )
    return rows
