"""The CLI over runs made by the fixtures: tables, timelines, errors and exit codes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from assay.cli import app
from assay.errors import BadInputError
from tests.conftest import make_run

runner = CliRunner()


def test_runs_table_and_json(sample_run: Path) -> None:
    result = runner.invoke(app, ["runs"])
    assert result.exit_code == 0, result.output
    assert sample_run.name[:15] in result.output and "1/2" in result.output
    rows = json.loads(runner.invoke(app, ["runs", "--json"]).output)
    assert rows[0]["id"] == sample_run.name
    assert (rows[0]["claims_verified"], rows[0]["claims_total"], rows[0]["status"]) == (
        1,
        2,
        "done",
    )
    assert rows[0]["duration_s"] >= 0


def test_show_renders_the_timeline(sample_run: Path) -> None:
    result = runner.invoke(app, ["show", sample_run.name[:-2]])
    assert result.exit_code == 0, result.output
    for expected in (
        "started research run: Sample topic",
        "search 3 queries → 7 results: alpha; beta; gamma",
        "opened Alpha page <http://site.test/a>",
        "skipped http://site.test/private: disallowed by robots.txt",
        "claim claim_001 (high) from src_01",
        "claim claim_002: weak",
        "report written (9 chars)",
        "finished: done",
    ):
        assert expected in result.output


def test_show_tolerates_a_torn_final_line(isolated_home: Path) -> None:
    run_dir = make_run(isolated_home, "torn", torn_log=True)
    result = runner.invoke(app, ["show", run_dir.name])
    assert result.exit_code == 0, result.output
    assert "finished: done" in result.output
    assert "warning: run.log.jsonl: the last line is torn" in result.output
    raw = json.loads(runner.invoke(app, ["show", run_dir.name, "--json"]).output)
    assert raw["events"][-1]["type"] == "run.finished"
    assert raw["problems"] == ["the last line is torn (an interrupted write) and was skipped"]


def test_follow_on_a_finished_run_returns(sample_run: Path) -> None:
    result = runner.invoke(app, ["show", sample_run.name, "--follow"])
    assert result.exit_code == 0 and "finished: done" in result.output


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["show", "no-such-run"], "no run matches 'no-such-run'"),
        (["show", "2"], "matches 2 runs"),
    ],
)
def test_user_errors_are_one_line_with_exit_code_2(
    isolated_home: Path, args: list[str], message: str
) -> None:
    make_run(isolated_home, "one")
    make_run(isolated_home, "two")
    result = runner.invoke(app, args)
    assert result.exit_code == 2
    assert message in result.output
    assert "Traceback" not in result.output
    assert len(result.output.strip().splitlines()) == 1


def test_bad_config_is_one_line(isolated_home: Path) -> None:
    (isolated_home / "config.toml").write_text("search = [\n")
    result = runner.invoke(app, ["runs"])
    assert result.exit_code == 2 and "not valid TOML" in result.output
    assert "Traceback" not in result.output


def test_debug_shows_the_traceback(isolated_home: Path) -> None:
    result = runner.invoke(app, ["--debug", "show", "nothing"])
    assert result.exit_code == 2  # the error's own exit code, as without --debug
    assert "Traceback (most recent call last)" in result.output
    assert "RunNotFoundError: no run matches 'nothing'" in result.output


def test_version() -> None:
    result = runner.invoke(app, ["--version"])
    assert result.exit_code == 0 and result.output.startswith("assay ")


def _commands(group: object, prefix: list[str]) -> list[list[str]]:
    import typer.main

    click_group = typer.main.get_command(app) if group is app else group
    found = []
    for name, command in getattr(click_group, "commands", {}).items():
        found.append([*prefix, name])
        found.extend(_commands(command, [*prefix, name]))
    return found


def test_every_command_has_help() -> None:
    commands = _commands(app, [])
    assert ["runs"] in commands and ["keys", "set"] in commands and ["config", "show"] in commands
    for path in commands:
        result = runner.invoke(app, [*path, "--help"])
        assert result.exit_code == 0, (path, result.output)
        assert "Usage" in result.output


def test_exit_codes_match_the_error_tree() -> None:
    assert BadInputError("x").exit_code == 2


def test_keys_list_with_no_keys_says_so_on_stderr(isolated_home: Path) -> None:
    result = runner.invoke(app, ["keys", "list"])
    assert result.exit_code == 0
    assert result.stdout == ""  # still an empty list for a script
    assert result.stderr.strip() == (
        f"no keys stored in {isolated_home / 'keys.json'}; add one with `assay keys set NAME`"
    )
