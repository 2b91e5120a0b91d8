"""A synth run's verdict matrix and chief author are read from synth.json by ``assay
show``, the TUI and the web app: report.md, edited by hand, changes none of them."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from assay.cli import app as cli
from assay.config import load_settings
from assay.errors import IntegrityError
from assay.protocols.synth.matrix import FactCheck, load_panel, write_panel
from assay.store.runs import REPORT_FILE, SYNTH_STATE_FILE, Run, RunStore
from assay.web.app import ServerConfig, create_app
from tests.tui.test_protocol_panes import REPORT, new_app, new_run, until
from tests.web.test_api import api_client, run_async

CHECKS = [
    FactCheck("Codex", "Peer", {"VERIFIED": 3, "FALSE": 0, "UNVERIFIABLE": 1}),
    FactCheck("Peer", "Codex", {"VERIFIED": 0, "FALSE": 0, "UNVERIFIABLE": 0}, "Peer timed out"),
]
EDITED = REPORT.replace("| VERIFIED |", "| FALSE |").replace(
    "Chief Author:** Codex", "Chief Author:** Mallory"
)


def synth_run(home: Path) -> Run:
    """A finished synth run whose report.md was then edited by hand (not through assay)."""
    run = new_run(home, "synth")
    write_panel(run, "Codex", CHECKS)
    run.write_file(REPORT_FILE, REPORT)
    (run.dir / REPORT_FILE).write_text(EDITED, encoding="utf-8")
    run.finish("done")
    return run


def test_load_panel_reads_synth_json_not_the_report(isolated_home: Path) -> None:
    panel = load_panel(synth_run(isolated_home).dir)
    assert panel.chief == "Codex"
    assert [(c.checker, c.author, c.counts, c.blocked) for c in panel.checks] == [
        (c.checker, c.author, c.counts, c.blocked) for c in CHECKS
    ]


def test_a_run_older_than_synth_json_is_read_from_its_report(isolated_home: Path) -> None:
    run = RunStore(isolated_home, fsync=False).create("Old", "synth", {})
    run.write_file(REPORT_FILE, REPORT)
    panel = load_panel(run.dir)
    assert panel.chief == "Codex"
    assert [(c.checker, c.author) for c in panel.checks] == [("Codex", "Peer"), ("Peer", "Codex")]


def test_an_unreadable_synth_json_is_a_one_line_integrity_error(isolated_home: Path) -> None:
    run = synth_run(isolated_home)
    (run.dir / SYNTH_STATE_FILE).write_text('{"checks": 7}', encoding="utf-8")
    with pytest.raises(IntegrityError, match=r"synth\.json: unreadable"):
        load_panel(run.dir)


def test_show_prints_the_matrix_of_synth_json(isolated_home: Path) -> None:
    run = synth_run(isolated_home)
    result = CliRunner().invoke(cli, ["show", run.id, "--home", str(isolated_home)])
    assert result.exit_code == 0, result.output
    rows = {
        line.split("│")[1].strip(): line
        for line in result.output.splitlines()
        if "→" in line and "│" in line
    }
    assert re.findall(r"│\s*(\d+)\s*", rows["Codex → Peer"]) == ["3", "0", "1"]
    assert "Peer timed out" in rows["Peer → Codex"]


def test_the_web_page_shows_the_matrix_of_synth_json(isolated_home: Path) -> None:
    run = synth_run(isolated_home)
    app = create_app(ServerConfig(load_settings(home=isolated_home)))

    async def scenario() -> None:
        async with api_client(app) as client:
            page = (await client.get(f"/runs/{run.id}")).text
            row = re.search(r'<td>Codex → Peer</td>\s*((?:<td class="num">\d+</td>)+)', page)
            assert row and re.findall(r"\d+", row.group(1)) == ["3", "0", "1"]

    run_async(scenario)


@pytest.mark.anyio
async def test_the_tui_panel_shows_the_matrix_of_synth_json(isolated_home: Path) -> None:
    from assay.tui.protocol_panes import PanelPane

    run = synth_run(isolated_home)
    app = new_app(isolated_home, run.id)
    async with app.run_test(size=(120, 30)) as pilot:
        pane = app.main.query_one(PanelPane)
        await until(pilot, lambda: len(pane.matrix_rows()) == 2)
        assert pane.matrix[("Codex", "Peer")] == {"VERIFIED": 3, "FALSE": 0, "UNVERIFIABLE": 1}
        assert pane.chief == "Codex"
        # the report edited again while the TUI watches: the matrix stays synth.json's
        (run.dir / REPORT_FILE).write_text(EDITED + "\n", encoding="utf-8")
        await pilot.pause(0.3)
        assert pane.matrix[("Codex", "Peer")] == {"VERIFIED": 3, "FALSE": 0, "UNVERIFIABLE": 1}
        # synth.json rewritten by the run: the matrix follows it
        write_panel(
            run,
            "Codex",
            [FactCheck("Codex", "Peer", {"VERIFIED": 1, "FALSE": 2, "UNVERIFIABLE": 1})],
        )
        await until(pilot, lambda: pane.matrix_rows() == [("Codex", "Peer", "1", "2", "1")])
