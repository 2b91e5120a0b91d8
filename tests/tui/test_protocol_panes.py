"""``assay tui``: the deep directions pane and the search-synth panel pane, over run directories
built by hand as those protocols leave them."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

pytest.importorskip("textual")

from textual.pilot import Pilot

from assay.events import (
    DeepDirectionScored,
    DeepEscalation,
    DeepSearchMethod,
    PhaseFinished,
    PhaseStarted,
    ReportUpdated,
    RunFinished,
    RunStarted,
    Signal,
    WarningEvent,
)
from assay.protocols.synth.matrix import parse_fact_checks
from assay.store.runs import Run, RunStore
from assay.tui import DEFAULT_PANES, AssayApp
from assay.tui.protocol_panes import DirectionsPane, PanelPane
from tests.conftest import make_run

CHECKS_OK = {"sources": True, "quotes": True, "coverage": True, "recency": True}


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


async def until(pilot: Pilot[None], check: Callable[[], bool], seconds: float = 3.0) -> None:
    for _ in range(int(seconds / 0.02)):
        if check():
            return
        await pilot.pause(0.02)
    assert check()


def new_app(home: Path, run_id: str) -> AssayApp:
    app = AssayApp(home, run_id=run_id, poll_interval=0.05)
    app.animation_level = "none"
    return app


def new_run(home: Path, protocol: str) -> Run:
    run = RunStore(home, fsync=False).create("Panel topic", protocol, {})
    run.events.emit(RunStarted(run_id=run.id, topic="Panel topic", protocol=protocol))
    return run


def deep_run(home: Path) -> Run:
    run = new_run(home, "deep")
    emit = run.events.emit
    emit(PhaseStarted(phase="search-method"))
    emit(DeepSearchMethod(method="searxng", evidence="3 results for 'alpha'", tried=["searxng"]))
    emit(PhaseFinished(phase="search-method", detail="searxng"))
    emit(PhaseStarted(phase="worker", detail="direction 1: History"))
    emit(DeepDirectionScored(direction=1, name="History", score=8.5, checks=CHECKS_OK))
    emit(PhaseFinished(phase="worker", detail="direction 1: History; score 8.5"))
    emit(PhaseStarted(phase="worker", detail="direction 2: Costs"))
    weak = {**CHECKS_OK, "quotes": False, "recency": False}
    emit(DeepDirectionScored(direction=2, name="Costs", score=4.0, checks=weak))
    emit(DeepEscalation(direction=2, name="Costs", reason="score 4.0 < 6.0", queries=["a", "b"]))
    emit(DeepDirectionScored(direction=2, name="Costs", score=5.0, checks=weak, attempt=2))
    emit(
        WarningEvent(
            message="direction 2 (Costs): [insufficient data — score: 5.0]",
            code="insufficient_data",
        )
    )
    emit(PhaseFinished(phase="worker", detail="direction 2: Costs; score 5.0"))
    return run


@pytest.mark.anyio
async def test_directions_pane_shows_scores_checks_and_escalations(isolated_home: Path) -> None:
    run = deep_run(isolated_home)
    app = new_app(isolated_home, run.id)
    async with app.run_test(size=(120, 30)) as pilot:
        await pilot.pause()
        assert "directions" in app.visible_panes() and "panel" not in app.visible_panes()
        pane = app.main.query_one(DirectionsPane)
        assert pane.method_line.startswith("search method: searxng — 3 results for 'alpha'")
        assert pane.rows() == [
            ("1", "History", "8.5", "4/4", "none", "no", "no", "done"),
            ("2", "Costs", "5.0 (retry)", "2/4", "quotes, recency", "yes", "yes", "done"),
        ]
        await pilot.press("d")
        assert app.tabs.active == "directions"

        # live: a third direction starts, then is scored
        run.events.emit(PhaseStarted(phase="worker", detail="direction 3: Outlook"))
        await until(pilot, lambda: len(pane.rows()) == 3)
        assert pane.rows()[2] == ("3", "Outlook", "—", "—", "—", "no", "no", "running")
        run.events.emit(
            DeepDirectionScored(direction=3, name="Outlook", score=7.0, checks=CHECKS_OK)
        )
        await until(pilot, lambda: pane.rows()[2][2] == "7.0")
        assert pane.rows()[2][3:5] == ("4/4", "none")


REPORT = """\
# Search-synth: Panel topic

## Phase 2: Fact Checks

### Codex Fact-Check of Peer
| Claim | Verdict | Source |
|-------|---------|--------|
| Alpha is 42 units tall. (claim_010: verified) | VERIFIED | http://a.test — "Alpha is 42" |
| Beta \\| gamma are equal. (claim_011: weak) | VERIFIED | http://b.test |
| Delta was founded in 1900. (claim_012: contradicted) | FALSE | http://c.test |
| Epsilon is blue. (claim_013: needs_review) | UNVERIFIABLE | no quote found |

### Peer Fact-Check of Codex
| Claim | Verdict | Source |
|-------|---------|--------|
| Zeta is large. (claim_014: verified) | VERIFIED | http://d.test |
| Eta is old. (claim_015: needs_review) | UNVERIFIABLE | no supporting or refuting quote found |
| Theta is new. (claim_016: needs_review) | UNVERIFIABLE | no supporting or refuting quote found |

## Phase 3: Best and Verified Response

**Chief Author:** Codex
"""


def test_parse_fact_checks_counts_verdicts_and_blocks() -> None:
    blocked = "### Slow Fact-Check of Codex\n\n**[BLOCK]** Slow did not report\n"
    checks = parse_fact_checks(REPORT + blocked)
    assert [(c.checker, c.author, c.counts, c.blocked) for c in checks] == [
        ("Codex", "Peer", {"VERIFIED": 2, "FALSE": 1, "UNVERIFIABLE": 1}, None),
        ("Peer", "Codex", {"VERIFIED": 1, "FALSE": 0, "UNVERIFIABLE": 2}, None),
        ("Slow", "Codex", {"VERIFIED": 0, "FALSE": 0, "UNVERIFIABLE": 0}, "Slow did not report"),
    ]


@pytest.mark.anyio
async def test_panel_pane_shows_agents_phase_and_verdict_matrix(isolated_home: Path) -> None:
    run = new_run(isolated_home, "synth")
    emit = run.events.emit
    emit(PhaseStarted(phase="phase1", detail="3 searchers"))
    emit(Signal(signal="[PHASE1_DONE]", agent="Codex", detail="5 sentences"))
    emit(Signal(signal="[PHASE1_DONE]", agent="Peer", detail="4 sentences"))
    emit(Signal(signal="[BLOCK]", agent="Slow", detail="Slow did not respond"))
    emit(PhaseFinished(phase="phase1", detail="2 responses"))
    emit(PhaseStarted(phase="phase2", detail="2 responses"))
    app = new_app(isolated_home, run.id)
    async with app.run_test(size=(120, 30)) as pilot:
        await pilot.pause()
        assert "panel" in app.visible_panes() and "directions" not in app.visible_panes()
        pane = app.main.query_one(PanelPane)
        assert pane.phase_line == "phase: Phase 2: fact-checks running (2 responses)"
        assert pane.agent_rows() == [
            ("Codex", "searcher", "[PHASE1_DONE]", "5 sentences"),
            ("Peer", "searcher", "[PHASE1_DONE]", "4 sentences"),
            ("Slow", "—", "[BLOCK]", "Slow did not respond"),
        ]
        assert pane.matrix == {} and pane.matrix_rows() == []
        await pilot.press("m")
        assert app.tabs.active == "panel"

        # live: the fact-checks end, the report is written, the chief author signals [DONE]
        emit(Signal(signal="[PHASE2_DONE]", agent="Codex", detail="checked 1 responses"))
        emit(Signal(signal="[PHASE2_DONE]", agent="Peer", detail="checked 1 responses"))
        emit(PhaseFinished(phase="phase2", detail="7 fact-checks"))
        run.write_file("report.md", REPORT)
        emit(ReportUpdated(chars=len(REPORT), path="report.md"))
        emit(Signal(signal="[DONE]", agent="Codex", detail="3 verified, 3 unverified"))
        emit(RunFinished(status="done"))
        run.finish("done")
        await until(pilot, lambda: pane.ending == "[DONE]" and len(pane.matrix_rows()) == 2)
        assert pane.matrix == {
            ("Codex", "Peer"): {"VERIFIED": 2, "FALSE": 1, "UNVERIFIABLE": 1},
            ("Peer", "Codex"): {"VERIFIED": 1, "FALSE": 0, "UNVERIFIABLE": 2},
        }
        assert pane.matrix_rows() == [
            ("Codex", "Peer", "2", "1", "1"),
            ("Peer", "Codex", "1", "0", "2"),
        ]
        roles = {row[0]: row[1] for row in pane.agent_rows()}
        assert roles == {
            "Codex": "searcher, fact-checker, chief author",
            "Peer": "searcher, fact-checker",
            "Slow": "—",
        }
        assert pane.phase_line == "phase: Phase 3: final response written  ·  ended [DONE]"

        # the report rewritten: the matrix follows it
        run.write_file("report.md", REPORT.replace("| FALSE |", "| VERIFIED |"))
        await until(pilot, lambda: pane.matrix[("Codex", "Peer")]["FALSE"] == 0)
        assert pane.matrix_rows()[0] == ("Codex", "Peer", "3", "0", "1")


@pytest.mark.anyio
async def test_protocol_panes_are_hidden_for_a_research_run(isolated_home: Path) -> None:
    assert DirectionsPane in DEFAULT_PANES and PanelPane in DEFAULT_PANES
    run_dir = make_run(isolated_home)
    app = new_app(isolated_home, run_dir.name)
    async with app.run_test(size=(100, 28)) as pilot:
        await pilot.pause()
        visible = app.visible_panes()
        assert "feed" in visible
        assert "directions" not in visible and "panel" not in visible
        await pilot.press("d")
        assert app.tabs.active == "feed"
        assert "no directions pane for this run" in app.notices
        await pilot.press("m")
        assert app.tabs.active == "feed"
        assert "no panel pane for this run" in app.notices
