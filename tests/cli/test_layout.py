"""The CLI reads well in an 80-column terminal: the runs table, help, and typos."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from assay.cli import app, output
from tests.conftest import make_run

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


def test_runs_at_80_columns_shows_every_column_in_two_lines_a_run(
    two_runs: list[Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    lines = runs_at(80, monkeypatch)  # as a pipe is laid out, too
    assert all(len(line) <= 80 for line in lines)
    assert lines[0].split() == ["id", "status", "claims"]
    assert lines[1].split() == ["started", "protocol", "duration", "topic"]
    for run in two_runs:
        at = next(i for i, line in enumerate(lines) if line.startswith(run.name))
        assert lines[at].split()[1:] == ["done", "1/2"]
        day, _time, protocol, duration, *_ = lines[at + 1].split()  # started: day time
        assert (protocol, duration[-1]) == ("research", "s") and day.startswith("20")
    long_at = next(i for i, line in enumerate(lines) if line.startswith(two_runs[1].name))
    topic_column = lines[1].index("topic")
    wrapped = [lines[long_at + 1][topic_column:]]
    for line in lines[long_at + 2 :]:
        if not line.startswith(" " * topic_column):
            break
        wrapped.append(line[topic_column:])
    assert " ".join(wrapped) == LONG_TOPIC  # wrapped under its column, not cut


def test_runs_at_120_columns_still_shows_every_column(
    two_runs: list[Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    text = " ".join(" ".join(runs_at(120, monkeypatch)).split())
    for header in ("id", "started", "protocol", "status", "claims", "duration", "topic"):
        assert f" {header} " in f" {text} "
    assert LONG_TOPIC in text


def test_runs_wide_enough_shows_one_line_a_run_with_every_column_in_full(
    two_runs: list[Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    lines = runs_at(250, monkeypatch)
    assert lines[0].split() == ["id", "started", "protocol", "status", "claims", "duration",
                                "topic"]  # fmt: skip
    assert len(lines) == 3
    assert lines[2].startswith(two_runs[1].name) and lines[2].rstrip().endswith(LONG_TOPIC)


def command_paths() -> list[list[str]]:
    """Every command and group, as the argv that reaches it."""
    import typer.main

    def walk(command: Any, path: list[str]) -> Iterator[list[str]]:
        yield path
        for name, sub in sorted(getattr(command, "commands", {}).items()):
            yield from walk(sub, [*path, name])

    return list(walk(typer.main.get_command(app), []))


PYTHON_TYPE = re.compile(r"<(bool|str|int|float|path|list\[[a-z]+\]|[a-z]+ range)>")


def test_every_help_fits_80_columns_without_python_types() -> None:
    paths = command_paths()
    assert ["synth"] in paths and ["index", "search"] in paths
    for path in paths:
        result = runner.invoke(app, [*path, "--help"], env={"COLUMNS": "80"})
        assert result.exit_code == 0, (path, result.output)
        lines = result.output.splitlines()
        assert all(len(line) <= 80 for line in lines), path
        assert not PYTHON_TYPE.search(result.output), (path, result.output)
        assert "…" not in result.output, (path, result.output)  # nothing cut short


def test_help_shows_plain_value_names_and_a_one_line_summary_per_paragraph() -> None:
    result = runner.invoke(app, ["synth", "--help"], env={"COLUMNS": "80"})
    assert "--allow-host" in result.output and "HOST" in result.output
    assert "--agent" in result.output and "KEY=VALUE,..." in result.output
    assert "name=A,role=SEARCHER,can_search=true,search_tool=local" in result.output
    assert "SECONDS [x>=0.01]" in result.output
    root = runner.invoke(app, ["--help"], env={"COLUMNS": "80"}).output
    # A docstring's line breaks no longer leave a half-empty line in the list.
    assert "origin and status, the report's markers" in " ".join(root.replace("│", " ").split())
    assert not any(line.rstrip(" │").endswith((" the", " weak")) for line in root.splitlines())


def test_a_misspelled_command_gets_did_you_mean() -> None:
    result = runner.invoke(app, ["resaerch", "topic"])
    assert result.exit_code == 2
    assert "No such command 'resaerch'. Did you mean 'research'" in " ".join(result.output.split())


def test_a_misspelled_provider_gets_did_you_mean(isolated_home: Path) -> None:
    result = runner.invoke(app, ["research", "topic", "--search", "brvae", "--quiet"])
    assert result.exit_code == 2
    lines = [line for line in result.output.splitlines() if line.startswith("error:")]
    assert len(lines) == 1 and "unknown search plugin 'brvae'; did you mean 'brave'?" in lines[0]


def test_a_misspelled_model_provider_or_search_plugin_gets_did_you_mean() -> None:
    from assay.errors import ConfigError
    from assay.models.registry import resolve_model
    from assay.plugins import SEARCH_GROUP, load_plugin

    with pytest.raises(ConfigError, match="'opnai'; did you mean 'openai'"):
        resolve_model("opnai:gpt-4o-mini")
    with pytest.raises(ConfigError, match="'searx'; did you mean 'searxng'"):
        load_plugin(SEARCH_GROUP, "searx")
    with pytest.raises(ConfigError, match=r"'zzz' \(known:"):  # nothing close: no guess
        load_plugin(SEARCH_GROUP, "zzz")
