"""``AssayApp``: browse runs, start one, and follow an open run live.

Every ``poll_interval`` seconds the app polls the open run's directory (``RunWatcher``:
only changed files are re-read) and hands the changes to each pane, so a run written by
another process is followed exactly as ``assay show --follow`` follows it. A run started
here goes through the injected ``start_run(mode, topic) -> run id`` in a Textual worker;
the new run is opened as soon as its directory appears (or when the runner returns).
A ``tool.request_full_research`` event raises a banner and, if it names a ``runId``, the
app follows that run.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import Any

from textual import on
from textual.app import App
from textual.binding import Binding
from textual.css.query import NoMatches
from textual.notifications import SeverityLevel
from textual.screen import Screen
from textual.widgets import DataTable, Static, TabbedContent, Tabs

from assay.errors import AssayError
from assay.store.runs import RunStore
from assay.tui.follow import (
    TORN_LINE,
    RunDelta,
    RunsIndex,
    RunWatcher,
    engine_of,
    escalated_from,
    escalation_in,
)
from assay.tui.panes import FeedPane, RunPane
from assay.tui.protocol_panes import DEFAULT_PANES
from assay.tui.screen import CSS, MainScreen
from assay.tui.widgets import Banner, HelpScreen, NewRunScreen, RunsPane

StartRun = Callable[[str, str], Awaitable[str]]
"""``start_run(mode, topic)`` with mode "research" or "ask"; returns the run id."""


class AssayApp(App[None]):
    """See the module docstring; ``panes`` is where protocol-specific views plug in."""

    TITLE = "assay"
    CSS = CSS
    main: MainScreen  # the screen with the panes (built by get_default_screen)

    def __init__(
        self,
        home: Path,
        *,
        run_id: str | None = None,
        start_run: StartRun | None = None,
        start_disabled: str | None = None,
        panes: Sequence[type[RunPane]] = DEFAULT_PANES,
        poll_interval: float = 0.5,
    ) -> None:
        super().__init__()
        self.store = RunStore(home, fsync=False)
        self.index = RunsIndex(self.store)
        self.start_run = start_run
        self.start_disabled = start_disabled or "starting runs is not available here"
        self.pane_classes = tuple(panes)
        self.poll_interval = poll_interval
        self.run_id: str | None = None
        self.watcher: RunWatcher | None = None
        self.escalation: str | None = None
        self._initial = run_id
        self._lock = asyncio.Lock()
        self._before_start: set[str] | None = None  # run ids that existed when a start began
        self._started: set[str] = set()  # runs started here: their escalations are followed
        self._follow: str | None = None  # a run to open as soon as it exists
        self._torn_shown = False
        self._claims = (0, 0)
        self.notices: list[str] = []
        self.status_line = ""

    def get_default_screen(self) -> Screen[Any]:
        extra = [
            # Off the footer, which has room for the general keys only; ? lists these.
            Binding(cls.key, f"app.show_pane('{cls.pane_id}')", cls.pane_title.lower(), show=False)
            for cls in self.pane_classes
        ]
        screen_class: type[MainScreen] = type("MainScreen", (MainScreen,), {"BINDINGS": extra})
        self.main = screen_class(self.pane_classes)
        return self.main

    # -- panes ----------------------------------------------------------------------------

    @property
    def tabs(self) -> TabbedContent:
        return self.main.query_one("#tabs", TabbedContent)

    def pane(self, pane_id: str) -> RunPane:
        return self.main.query_one(f"#{pane_id} RunPane", RunPane)

    def run_panes(self) -> list[RunPane]:
        return list(self.main.query(RunPane))

    def visible_panes(self) -> list[str]:
        info = self.watcher.info if self.watcher else None
        return ["runs"] + [c.pane_id for c in self.pane_classes if c.applies_to(info)]

    def action_show_pane(self, pane_id: str) -> None:
        if pane_id not in self.visible_panes():
            self.say(f"no {pane_id} pane for this run", severity="warning")
            return
        self.tabs.active = pane_id
        if pane_id == "runs":
            self.refresh_runs()
            self.main.query_one("#runs-table", DataTable).focus()
        else:
            self.pane(pane_id).focus_target().focus()

    def action_cycle_pane(self, step: int) -> None:
        visible = self.visible_panes()
        current = self.tabs.active
        index = visible.index(current) if current in visible else 0
        self.action_show_pane(visible[(index + step) % len(visible)])

    def action_help(self) -> None:
        self.push_screen(HelpScreen())

    @on(TabbedContent.TabActivated)
    def _tab_activated(self, event: TabbedContent.TabActivated) -> None:
        if event.pane.id == "runs":
            self.refresh_runs()

    # -- runs -----------------------------------------------------------------------------

    def refresh_runs(self) -> None:
        self.main.query_one(RunsPane).show(self.index.rows())

    @on(RunsPane.Open)
    async def _open_chosen(self, event: RunsPane.Open) -> None:
        await self.open_run(event.run_id)

    async def open_run(self, run_id: str, *, banner: str = "") -> None:
        """Show ``run_id`` (or a unique prefix of it) in every pane, from its first event."""
        async with self._lock:
            await self._open(run_id, banner=banner)

    async def _open(self, run_id: str, *, banner: str = "") -> None:
        try:
            directory = self.store.resolve(run_id)
        except AssayError as exc:
            self.say(str(exc), severity="error")
            return
        texts = tuple(dict.fromkeys(f for c in self.pane_classes for f in c.text_files))
        self.run_id, self.watcher = directory.name, RunWatcher(directory, texts)
        self.escalation, self._torn_shown, self._claims = None, False, (0, 0)
        self.main.query_one(Banner).say(banner)
        for pane in self.run_panes():
            await pane.reset()
        await self._poll_run()
        self.action_show_pane("feed" if "feed" in self.visible_panes() else "runs")

    # -- polling --------------------------------------------------------------------------

    @on(MainScreen.Ready)
    async def _screen_ready(self) -> None:
        if self._initial:
            await self.open_run(self._initial)
        else:
            self.action_show_pane("runs")
        self.set_interval(self.poll_interval, self.poll)

    async def poll(self) -> None:
        """One tick: open a run that just appeared, then apply the open run's changes."""
        if self._lock.locked():
            return  # the previous tick (or an open) is still at work
        async with self._lock:
            try:
                await self._open_appeared()
                if self.watcher is not None:
                    await self._poll_run()
                    await self._open_appeared()
                if self.tabs.active == "runs":
                    self.refresh_runs()
            except (NoMatches, Tabs.TabError):
                if self.is_running:
                    raise
                # the app is shutting down and its widgets are already gone

    async def _open_appeared(self) -> None:
        if self._before_start is None and self._follow is None:
            return
        ids = self.store.ids()
        if self._follow in ids:
            target, self._follow = self._follow, None
            await self._open(target, banner=f"{self.escalation} (following it)")
        elif self._before_start is not None and (new := sorted(set(ids) - self._before_start)):
            self._before_start = None
            self._started.add(new[0])
            await self._open(new[0])

    async def _poll_run(self) -> None:
        watcher = self.watcher
        assert watcher is not None
        delta = watcher.poll()
        if delta.info is not None:
            self._show_tabs_for_run()
        if delta:
            for pane in self.run_panes():
                await pane.apply(delta)
        if delta.claims is not None:
            verified = sum(1 for c in delta.claims if c.get("status") == "verified")
            self._claims = (verified, len(delta.claims))
        self._check_escalation(delta)
        status = watcher.status()
        if watcher.log.torn and status != "running" and not self._torn_shown:
            self._torn_shown = True
            for pane in self.run_panes():
                if isinstance(pane, FeedPane):
                    await pane.apply(RunDelta(problems=[TORN_LINE]))
        self._show_status(status)

    def _show_tabs_for_run(self) -> None:
        info = self.watcher.info if self.watcher else None
        for cls in self.pane_classes:
            if cls.applies_to(info):
                self.tabs.show_tab(cls.pane_id)
            else:
                self.tabs.hide_tab(cls.pane_id)

    def _check_escalation(self, delta: RunDelta) -> None:
        banner = ""
        if delta.first and delta.info is not None:
            parent = escalated_from(self.store.root, delta.info)
            if parent is not None:
                banner = f"{parent.text} (from ask run {parent.origin})"
        for event in delta.events:
            if (found := escalation_in(event)) is None:
                continue
            self.escalation = banner = found.text + (f" → {found.run_id}" if found.run_id else "")
            live = not delta.first or self._status() == "running" or self.run_id in self._started
            if found.run_id and found.run_id != self.run_id and live:
                self._follow = found.run_id
            self.say(found.text, severity="warning")
        if banner:
            self.main.query_one(Banner).say(banner)

    def say(self, message: str, *, severity: SeverityLevel = "information") -> None:
        """A toast, kept in ``notices`` too (the session's messages, oldest first)."""
        self.notices.append(message)
        self.notify(message, severity=severity, timeout=10 if severity == "error" else 5)

    def _status(self) -> str:
        return self.watcher.status() if self.watcher else "unknown"

    def _show_status(self, status: str) -> None:
        info = self.watcher.info if self.watcher else None
        if info is None:
            return
        engine = engine_of(info)
        self.sub_title = f"{info.topic} · {info.protocol} · {status} · {engine}"
        verified, total = self._claims
        line = f"{info.id}  ·  {status}  ·  {engine}  ·  claims {verified}/{total} verified"
        if line != self.status_line:  # an update repaints: only when something changed
            self.status_line = line
            self.main.query_one("#status", Static).update(line)

    # -- starting a run -------------------------------------------------------------------

    def action_new_run(self) -> None:
        if self.start_run is None:
            self.say(self.start_disabled, severity="warning")
            return
        self.push_screen(NewRunScreen(), self._start_chosen)

    def _start_chosen(self, choice: tuple[str, str] | None) -> None:
        if choice is None:
            return
        mode, topic = choice
        self._before_start = set(self.store.ids())
        self.say(f"starting {mode}: {topic}")
        self.run_worker(self._run_start(mode, topic), group="start", exit_on_error=False)

    async def _run_start(self, mode: str, topic: str) -> None:
        assert self.start_run is not None
        try:
            run_id = await self.start_run(mode, topic)
        except Exception as exc:  # the run's own files say what happened; show it in one line
            self._before_start = None
            self.say(f"the run stopped: {exc}", severity="error")
            return
        if self._before_start is not None:  # its directory never showed up while it ran
            self._before_start = None
            self._started.add(run_id)
            await self.open_run(run_id)
        self.say(f"run {run_id} ended")
