"""`assay synth` from the command line: a roster file, and exit codes per signal."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from assay.cli import app

runner = CliRunner()


def test_a_roster_that_cannot_search_is_a_mismatch_with_exit_5(
    tmp_path: Path, isolated_home: Path
) -> None:
    roster = tmp_path / "roster.yaml"
    roster.write_text(
        "agents:\n"
        "  - {name: CC, role: MANAGER, can_search: false}\n"
        "  - {name: Codex, role: SEARCHER, can_search: true, search_tool: searxng,"
        " searxng_url: 'http://127.0.0.1:9'}\n"
    )
    output = tmp_path / "out.md"
    result = runner.invoke(
        app, ["synth", "What is RAG?", "--roster", str(roster), "--output", str(output)]
    )
    assert result.exit_code == 5, result.output
    assert "[MISMATCH]" in output.read_text()
    assert "Codex" in output.read_text()


@pytest.mark.parametrize("content", [None, "agents: [{name: CC, role: BOSS}]\n", "agents: [\n"])
def test_a_roster_error_writes_nothing_and_says_so_on_stderr(
    tmp_path: Path, isolated_home: Path, content: str | None
) -> None:
    roster = tmp_path / "roster.yaml"
    if content is not None:
        roster.write_text(content)
    output = tmp_path / "o.md"
    result = runner.invoke(app, ["synth", "t", "--roster", str(roster), "--output", str(output)])
    assert result.exit_code == 2, result.output  # bad input, as every other command's
    assert result.stdout == ""
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "roster" in lines[0] and "Traceback" not in result.stderr
    assert not output.exists()
    assert not (isolated_home / "runs").exists() or not any((isolated_home / "runs").iterdir())


def test_the_help_example_roster_passes_the_role_rules() -> None:
    import inspect
    import re

    from assay.cli.synth_cmd import synth
    from assay.protocols.synth import roster_from_flags
    from assay.protocols.synth.preflight import check_roles

    example = (inspect.getdoc(synth) or "").split("Example:", 1)[1].split("\n\n", 1)[0]
    flags = re.findall(r"--agent (\S+)", example)
    chief = re.search(r"--chief-author (\S+)", example)
    found = check_roles(roster_from_flags(flags, chief.group(1) if chief else None))
    assert len(flags) == 3 and found.problems == []
