"""``assay tui``: the Textual app driven by its pilot, over real run directories."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import typer
from typer.testing import CliRunner

pytest.importorskip("textual")

from textual.pilot import Pilot
from textual.widgets import DataTable, Input, Markdown, RichLog

from assay.cli import tui_cmd
from assay.config import load_settings
from assay.errors import RunNotFoundError
from assay.events import (
    ClaimCreated,
    FullResearchRequested,
    PhaseFinished,
    PhaseStarted,
    PlanWritten,
    ReportUpdated,
    RunFinished,
    RunStarted,
    ToolSearch,
)
from assay.store.claims import ClaimLedger, ClaimRecord
from assay.store.runs import Run, RunStore
from assay.tui import AssayApp
from assay.tui.follow import TORN_LINE, RunWatcher
from assay.tui.panes import ClaimsPane, FeedPane, PlanPane, ReportPane, tick_boxes
from tests.conftest import make_run


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


async def until(pilot: Pilot[None], check: Callable[[], bool], seconds: float = 3.0) -> None:
    """Let the app run until ``check()`` holds (the poll timer does the work)."""
    for _ in range(int(seconds / 0.02)):
        if check():
            return
        await pilot.pause(0.02)
    assert check()


def new_app(home: Path, **options: Any) -> AssayApp:
    app = AssayApp(home, poll_interval=0.05, **options)
    app.animation_level = "none"  # pilot waits for every animation to end
    return app


def feed(app: AssayApp) -> FeedPane:
    return app.main.query_one(FeedPane)


def claims_rows(app: AssayApp) -> list[tuple[str, str]]:
    table: DataTable[object] = app.main.query_one("#claims-table", DataTable)
    return [
        (str(table.get_row_at(i)[0]), str(table.get_row_at(i)[1])) for i in range(table.row_count)
    ]


def running_run(home: Path, topic: str = "Live topic", protocol: str = "research") -> Run:
    run = RunStore(home, fsync=False).create(topic, protocol, {"model": "openai:test-model"})
    run.events.emit(RunStarted(run_id=run.id, topic=topic, protocol=protocol))
    return run


def markdown_text(widget: Markdown) -> str:
    return widget.source


@pytest.mark.anyio
async def test_open_finished_run_shows_feed_claims_and_report(isolated_home: Path) -> None:
    run_dir = make_run(isolated_home)
    app = new_app(isolated_home, run_id=run_dir.name)
    async with app.run_test(size=(90, 28)) as pilot:
        await pilot.pause()
        lines = feed(app).lines
        assert any("started research run: Sample topic" in line for line in lines)
        assert any("search 3 queries → 7 results: alpha; beta; gamma" in line for line in lines)
        assert any(
            "skipped http://site.test/private: disallowed by robots.txt" in line for line in lines
        )
        assert any("claim claim_002: weak" in line for line in lines)
        assert lines[-1].endswith("finished: done")
        log = app.main.query_one("#feed-log", RichLog)
        await until(pilot, lambda: any("finished: done" in s.text for s in log.lines))
        assert claims_rows(app) == [("claim_001", "verified"), ("claim_002", "weak")]
        report = app.main.query_one(ReportPane)
        assert report.text == "# Report\n"
        assert markdown_text(report.query_one(Markdown)) == "# Report\n"
        assert app.tabs.active == "feed"
        assert "done" in app.sub_title and "extractive engine" in app.sub_title
        status = app.status_line
        assert "claims 1/2 verified" in status and run_dir.name in status


@pytest.mark.anyio
async def test_live_run_updates_every_pane(isolated_home: Path) -> None:
    run = running_run(isolated_home)
    app = new_app(isolated_home, run_id=run.id)
    async with app.run_test(size=(90, 28)) as pilot:
        await pilot.pause()
        assert "running" in app.sub_title and "model openai:test-model" in app.sub_title
        assert claims_rows(app) == []

        run.write_file("plan.md", "# Plan\n\n- [ ] gather\n- [ ] verify\n")
        run.events.emit(PlanWritten(path="plan.md", chars=30))
        run.events.emit(PhaseStarted(phase="gather"))
        run.events.emit(ToolSearch(queries=["q1", "q2"], result_count=4))
        ledger = ClaimLedger(run.dir, fsync=False)
        claim = ClaimRecord(
            id="claim_001", text="Water boils at 100 C.", confidence="high", sourceIds=["src_01"]
        )
        ledger.append(claim)
        run.events.emit(ClaimCreated(id="claim_001", confidence="high", source_ids=["src_01"]))
        await until(pilot, lambda: claims_rows(app) == [("claim_001", "unverified")])
        await until(
            pilot, lambda: any("search 2 queries → 4 results" in ln for ln in feed(app).lines)
        )
        plan = app.main.query_one(PlanPane)
        await until(pilot, lambda: "☐ gather" in markdown_text(plan.query_one(Markdown)))

        run.write_file("plan.md", "# Plan\n\n- [x] gather\n- [ ] verify\n")
        run.events.emit(PhaseFinished(phase="gather"))
        ledger.rewrite([claim.model_copy(update={"status": "verified"})])
        run.write_file("report.md", "# Findings\n\nWater boils at 100 C [1].\n")
        run.events.emit(ReportUpdated(chars=40))
        await until(pilot, lambda: claims_rows(app) == [("claim_001", "verified")])
        await until(pilot, lambda: "☑ gather" in markdown_text(plan.query_one(Markdown)))
        assert plan.phases == {"gather": "✓"}
        report = app.main.query_one(ReportPane)
        await until(pilot, lambda: report.text is not None and "Water boils" in report.text)

        run.events.emit(RunFinished(status="done"))
        run.finish("done")
        await until(pilot, lambda: "· done ·" in app.sub_title)
        assert feed(app).lines[-1].endswith("finished: done")


@pytest.mark.anyio
async def test_torn_last_line_keeps_everything_before_it(isolated_home: Path) -> None:
    run_dir = make_run(isolated_home, torn_log=True)
    app = new_app(isolated_home, run_id=run_dir.name)
    async with app.run_test(size=(90, 28)) as pilot:
        await pilot.pause()
        lines = feed(app).lines
        assert any("finished: done" in line for line in lines)
        assert lines[-1].endswith(TORN_LINE)
        assert sum(TORN_LINE in line for line in lines) == 1
        assert claims_rows(app) == [("claim_001", "verified"), ("claim_002", "weak")]


def test_watcher_reads_only_what_changed(isolated_home: Path) -> None:
    run = running_run(isolated_home)
    watcher = RunWatcher(run.dir)
    first = watcher.poll()
    assert first.first and first.info is not None and len(first.events) == 1
    assert not watcher.poll()  # nothing changed: an empty delta
    with (run.dir / "run.log.jsonl").open("ab") as handle:
        handle.write(b'{"type":"warning","data":{"message":"half')
    assert not watcher.poll().events and watcher.log.torn  # mid-append: wait for the rest
    with (run.dir / "run.log.jsonl").open("ab") as handle:
        handle.write(b'"},"seq":1,"ts":"2026-01-01T00:00:00.000Z"}\n')
    delta = watcher.poll()
    assert [r["data"]["message"] for r in delta.records] == ["half"] and not watcher.log.torn
    assert delta.info is None and delta.claims is None and not delta.texts


@pytest.mark.anyio
async def test_start_run_opens_the_new_run_while_it_runs(isolated_home: Path) -> None:
    make_run(isolated_home, "An older run")
    may_finish = asyncio.Event()
    calls: list[tuple[str, str]] = []

    async def fake_runner(mode: str, topic: str) -> str:
        calls.append((mode, topic))
        run = running_run(isolated_home, topic, protocol=mode)
        run.events.emit(PhaseStarted(phase="gather"))
        await may_finish.wait()
        run.events.emit(RunFinished(status="done"))
        run.finish("done")
        return run.id

    app = new_app(isolated_home, start_run=fake_runner)
    async with app.run_test(size=(90, 28)) as pilot:
        await pilot.pause()
        assert app.tabs.active == "runs" and app.run_id is None
        await pilot.press("n")
        await pilot.pause()
        app.screen.query_one(Input).value = "tides"
        await pilot.press("enter")
        # opened: the id is set first, the feed shown once the run's files are read
        await until(pilot, lambda: app.run_id is not None and app.tabs.active == "feed")
        assert calls == [("research", "tides")]
        assert app.watcher is not None and app.watcher.info is not None
        assert app.watcher.info.topic == "tides" and app.tabs.active == "feed"
        await until(pilot, lambda: any("phase gather started" in ln for ln in feed(app).lines))
        assert app.watcher.status() == "running"  # opened while the runner is still at work
        may_finish.set()
        await until(pilot, lambda: any("finished: done" in ln for ln in feed(app).lines))
        await until(pilot, lambda: app.notices[-1] == f"run {app.run_id} ended")


@pytest.mark.anyio
async def test_ask_that_escalates_at_once_ends_on_the_full_run(isolated_home: Path) -> None:
    async def fake_ask(mode: str, topic: str) -> str:
        """Like ask_async: the ask run escalates and finishes before the TUI has looked."""
        ask = running_run(isolated_home, topic, protocol=mode)
        full = running_run(isolated_home, topic, protocol="research")
        full.info.escalated_from = ask.id  # as assay.protocols.runner.start_run records it
        full.save_info()
        ask.events.emit(FullResearchRequested(reason="needs sources", run_id=full.id))
        ask.finish("done", f"escalated to full research: {full.id}")
        full.events.emit(PhaseStarted(phase="plan"))
        return full.id

    app = new_app(isolated_home, start_run=fake_ask)
    async with app.run_test(size=(90, 28)) as pilot:
        await pilot.press("n")
        app.screen.query_one(Input).value = "is remote work productive"
        await pilot.press("tab", "space", "shift+tab", "enter")  # switch to "ask", start
        full_id = lambda: app.store.ids()[-1]  # noqa: E731 - the "-2" run sorts last
        await until(pilot, lambda: len(app.store.ids()) == 2 and app.run_id == full_id())
        await until(pilot, lambda: any("phase plan started" in ln for ln in feed(app).lines))
        banner = str(app.main.query_one("#banner").render())
        assert banner.startswith("escalated to full research: needs sources (from ask run ")


@pytest.mark.anyio
async def test_quitting_cancels_a_run_started_here(isolated_home: Path) -> None:
    outcome: list[str] = []

    async def endless(mode: str, topic: str) -> str:
        run = running_run(isolated_home, topic, protocol=mode)
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:  # what the protocols' execute() turns into "interrupted"
            outcome.append(run.id)
            raise
        return run.id

    app = new_app(isolated_home, start_run=endless)
    async with app.run_test(size=(90, 28)) as pilot:
        await pilot.press("n")
        app.screen.query_one(Input).value = "forever"
        await pilot.press("enter")
        await until(pilot, lambda: app.run_id is not None)
        await pilot.press("q")
    assert outcome == [app.run_id]


@pytest.mark.anyio
async def test_start_run_disabled_says_why(isolated_home: Path) -> None:
    app = new_app(isolated_home, start_disabled="no research protocol here")
    async with app.run_test(size=(90, 28)) as pilot:
        await pilot.press("n")
        await pilot.pause()
        assert app.notices == ["no research protocol here"]
        assert app.screen.__class__.__name__ == "MainScreen"


@pytest.mark.anyio
async def test_escalation_banner_and_following_the_new_run(isolated_home: Path) -> None:
    ask = running_run(isolated_home, "quick question", protocol="ask")
    app = new_app(isolated_home, run_id=ask.id)
    async with app.run_test(size=(90, 28)) as pilot:
        await pilot.pause()
        full = running_run(isolated_home, "quick question", protocol="research")
        ask.events.emit(FullResearchRequested(reason="needs several sources", run_id=full.id))
        await until(pilot, lambda: app.run_id == full.id)
        banner = str(app.main.query_one("#banner").render())
        assert "escalated to full research: needs several sources" in banner
        assert full.id in banner and app.main.query_one("#banner").display
        assert "escalated to full research: needs several sources" in app.notices
        await until(
            pilot, lambda: any("started research run: quick" in ln for ln in feed(app).lines)
        )


@pytest.mark.anyio
async def test_escalation_in_the_same_run_shows_the_banner(isolated_home: Path) -> None:
    ask = running_run(isolated_home, "why is the sky blue", protocol="ask")
    ask.events.emit(FullResearchRequested(reason="research-grade question"))
    app = new_app(isolated_home, run_id=ask.id)
    async with app.run_test(size=(90, 28)) as pilot:
        await pilot.pause()
        assert app.run_id == ask.id
        assert "research-grade question" in str(app.main.query_one("#banner").render())
        assert feed(app).lines[-1].endswith("escalated to full research: research-grade question")


@pytest.mark.anyio
async def test_keyboard_moves_between_panes_and_runs(isolated_home: Path) -> None:
    older = make_run(isolated_home, "First topic")
    newer = make_run(isolated_home, "Second topic")
    app = new_app(isolated_home)
    async with app.run_test(size=(90, 28)) as pilot:
        await pilot.pause()
        table: DataTable[object] = app.main.query_one("#runs-table", DataTable)
        assert table.row_count == 2 and str(table.get_row_at(0)[-1]) == newer.name
        assert str(table.get_row_at(0)[4]) == "1/2"
        await pilot.press("down", "enter")  # the second row: the older run
        await until(pilot, lambda: app.run_id == older.name and app.tabs.active == "feed")
        for key, pane in (("p", "plan"), ("o", "report"), ("c", "claims")):
            await pilot.press(key)
            assert app.tabs.active == pane
        assert isinstance(app.focused, DataTable) and app.focused.id == "claims-table"
        assert app.main.query_one(ClaimsPane).claims
        await pilot.press("tab", "tab")
        assert app.tabs.active == "runs"
        await pilot.press("shift+tab")
        assert app.tabs.active == "report"
        await pilot.press("question_mark")
        assert app.screen.__class__.__name__ == "HelpScreen"
        await pilot.press("escape")
        assert app.screen.__class__.__name__ == "MainScreen"
        await pilot.press("f", "r")
        assert app.tabs.active == "runs"
        await pilot.press("q")
    assert app.return_code == 0


def test_checkboxes_become_glyphs() -> None:
    assert tick_boxes("- [x] gather\n  - [ ] verify\n* [X] plan\n") == (
        "- ☑ gather\n  - ☐ verify\n* ☑ plan\n"
    )


def _cli() -> typer.Typer:
    cli = typer.Typer()
    cli.command()(tui_cmd.tui)
    return cli


def test_tui_command_opens_a_run_by_prefix(
    isolated_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    run_dir = make_run(isolated_home)
    opened: list[AssayApp] = []
    monkeypatch.setattr(AssayApp, "run", lambda self, **_: opened.append(self))
    result = CliRunner().invoke(_cli(), [run_dir.name[:20], "--home", str(isolated_home)])
    assert result.exit_code == 0, result.output
    (app,) = opened
    assert app._initial == run_dir.name and app.store.root == isolated_home / "runs"
    missing = CliRunner().invoke(_cli(), ["no-such-run"])
    assert isinstance(missing.exception, RunNotFoundError)  # the root app maps it to exit 2


def test_runner_dispatches_research_and_ask(monkeypatch: pytest.MonkeyPatch) -> None:
    from assay.protocols import registry
    from assay.protocols.contract import ProtocolRequest, ProtocolResult, ProtocolSpec, RunEnv

    seen: list[tuple[str, str]] = []

    def fake(name: str) -> ProtocolSpec[ProtocolRequest]:
        async def run(request: ProtocolRequest, env: RunEnv) -> ProtocolResult:
            seen.append((name, request.topic))
            return ProtocolResult(run_id=f"{name[0]}1", protocol=name, status="done")

        return ProtocolSpec(name=name, request=ProtocolRequest, run=run)

    def missing(name: str) -> ProtocolSpec[ProtocolRequest]:
        raise registry.unknown_name("protocol", name, [])

    monkeypatch.setattr(registry, "protocol_spec", fake)
    start, why_not = tui_cmd.research_runner(load_settings())
    assert why_not is None and start is not None
    assert asyncio.run(start("research", "tides")) == "r1"
    assert asyncio.run(start("ask", "why")) == "a1"
    assert seen == [("research", "tides"), ("ask", "why")]

    monkeypatch.setattr(registry, "protocol_spec", missing)
    start, why_not = tui_cmd.research_runner(load_settings())
    assert start is None and why_not is not None and "research" in why_not


def test_runner_starts_a_real_research_run(isolated_home: Path) -> None:
    pytest.importorskip("assay.protocols.research")
    from assay.gather.index import Document, LocalIndex

    with LocalIndex(isolated_home / "index.sqlite") as index:  # a search must succeed
        text = "Water boils at 100 degrees Celsius at sea level."
        index.add_documents([Document("w", "Water", text, None, None, "text/plain")])
    start, why_not = tui_cmd.research_runner(load_settings())
    assert start is not None, why_not
    run_id = asyncio.run(start("research", "boiling point of water"))
    assert RunStore(isolated_home).open(run_id).info.protocol == "research"
