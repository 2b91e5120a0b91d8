"""The CLI reads well in an 80-column terminal: the runs table, help, and typos."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from assay.cli import app, output
from conftest import make_run

runner = CliRunner()
LONG_TOPIC = "What is the tallest mountain in the solar system and how was its height measured?"


def runs_at(width: int, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    monkeypatch.setattr(output.console, "width", width)
    result = runner.invoke(app, ["runs"])
    assert result.exit_code == 0, result.output
    return result.output.rstrip("\n").splitlines()


@pytest.fixture
def two_runs(isolated_home: Path) -> list[Path]:
    return [make_run(isolated_home), make_run(isolated_home, LONG_TOPIC)]


def test_runs_at_80_columns_shows_whole_ids_status_and_claims(
    two_runs: list[Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    lines = runs_at(80, monkeypatch)
    assert all(len(line) <= 80 for line in lines)
    assert lines[0].split() == ["id", "status", "claims"]
    for run in two_runs:
        row = next(line for line in lines if line.startswith(run.name))
        assert row.split()[1:] == ["done", "1/2"]


def test_runs_at_120_columns_adds_protocol_duration_and_a_shortened_topic(
    two_runs: list[Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    lines = runs_at(120, monkeypatch)
    assert all(len(line) <= 120 for line in lines)
    assert lines[0].split() == ["id", "protocol", "status", "claims", "duration", "topic"]
    long_row = next(line for line in lines if line.startswith(two_runs[1].name))
    assert " research " in long_row and " done " in long_row
    assert long_row.rstrip().endswith("…") and LONG_TOPIC[:10] in long_row
    short_row = next(line for line in lines if line.startswith(two_runs[0].name))
    assert short_row.rstrip().endswith("Sample topic")


def test_runs_wide_enough_shows_every_column_in_full(
    two_runs: list[Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    lines = runs_at(250, monkeypatch)
    assert "started" in lines[0].split()
    assert any(line.rstrip().endswith(LONG_TOPIC) for line in lines)
