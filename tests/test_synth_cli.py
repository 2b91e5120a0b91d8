"""`assay synth` from the command line: a roster file, and exit codes per signal."""

from __future__ import annotations

from pathlib import Path

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


def test_a_missing_roster_file_is_a_one_line_error(tmp_path: Path, isolated_home: Path) -> None:
    result = runner.invoke(
        app,
        ["synth", "t", "--roster", str(tmp_path / "nope.yaml"), "--output", str(tmp_path / "o.md")],
    )
    assert result.exit_code == 7, result.output  # the spec's [BLOCK]: missing input
    assert "[BLOCK] missing input: roster" in result.output
    assert "[BLOCK] [BLOCK]" not in result.output and "Traceback" not in result.output


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
