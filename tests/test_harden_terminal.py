"""Names a user declares reach neither the terminal nor an output file with an escape in them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from assay.cli import synth_cmd
from assay.cli.app import app
from assay.cli.output import print_json
from assay.controls import has_controls
from assay.errors import BadInputError
from assay.protocols.synth import SynthResult, parse_roster
from assay.protocols.synth.output import Synthesis, render

TITLE = "S1\x1b]0;T\x07"  # ESC ] 0 ; T BEL: sets the terminal's title
runner = CliRunner()


def _controls_in(text: str) -> list[str]:
    return [c for c in text if has_controls(c) and c not in "\n\t"]


def test_an_agent_flag_with_an_escape_in_its_name_is_a_one_line_error(tmp_path: Path) -> None:
    output = tmp_path / "out.md"
    result = runner.invoke(
        app,
        ["synth", "What is RAG?", "--output", str(output), "--chief-author", "B",
         "--agent", "name=CC,role=MANAGER",
         "--agent", f"name={TITLE},role=SEARCHER,can_search=true,search_tool=local",
         "--agent", "name=B,role=SEARCHER,can_search=true,search_tool=local"],
    )  # fmt: skip
    assert result.exit_code == BadInputError.exit_code, result.output
    assert "agents.1.name" in result.output and "control characters" in result.output
    assert _controls_in(result.output) == [] and "Traceback" not in result.output
    assert not output.exists()


def test_a_roster_file_with_an_escape_in_a_name_is_refused_without_echoing_it(
    tmp_path: Path,
) -> None:
    roster = tmp_path / "roster.yaml"
    roster.write_text(
        "agents:\n"
        "  - {name: CC, role: MANAGER}\n"
        '  - {name: "S1\\e]0;T\\a", role: SEARCHER, can_search: true, search_tool: local}\n'
        "  - {name: B, role: SEARCHER, can_search: true, search_tool: local}\n",
        encoding="utf-8",
    )
    output = tmp_path / "out.md"
    result = runner.invoke(
        app, ["synth", "What is RAG?", "--roster", str(roster), "--output", str(output)]
    )
    assert result.exit_code == 2, result.output  # bad input: nothing starts (issue 25)
    assert "must not contain control characters" in result.output
    assert _controls_in(result.output) == []
    assert not output.exists()


@pytest.mark.parametrize("field", ["name", "chief_author"])
@pytest.mark.parametrize("bad", [TITLE, "two\nlines", "   "])
def test_roster_names_must_be_printable(field: str, bad: str) -> None:
    agents = [{"name": "CC", "role": "MANAGER"}, {"name": "B", "role": "SEARCHER"}]
    data: dict[str, object] = {"agents": agents}
    if field == "name":
        agents[1]["name"] = bad
    else:
        data["chief_author"] = bad
    with pytest.raises(BadInputError, match="must not"):
        parse_roster(data)


def test_the_searchers_line_never_prints_an_escape(capsys: pytest.CaptureFixture[str]) -> None:
    result = SynthResult(
        run_id="r", run_dir="d", status="done", signal="[DONE]", reason="[DONE]",
        output="out.md", report=None, searchers=[TITLE, "B\x9b2J"], chief_author=TITLE,
        matrix={}, blocked={}, claims={}, usage={}, engine="extractive",
    )  # fmt: skip
    synth_cmd._print(result)
    out = capsys.readouterr().out
    assert "searchers: S1]0;T, B2J; chief author: S1]0;T" in out
    assert _controls_in(out) == []


def test_the_output_file_carries_no_control_character() -> None:
    synth = Synthesis(f"topic {TITLE}", "2026-01-01", [TITLE], TITLE, log=[f"{TITLE} left"])
    synth.ending, synth.ending_detail = "[MISMATCH]", f"{TITLE} cannot search"
    text = render(synth, {}, preflight=f"  - {TITLE}: role SEARCHER")
    assert _controls_in(text) == []
    assert "**Chief Author:** S1]0;T" in text


def test_json_output_escapes_del_and_c1(capsys: pytest.CaptureFixture[str]) -> None:
    value = {"name": "a\x9b2J\x7fb\x1b", "plain": "Zürich"}
    print_json(value)
    out = capsys.readouterr().out
    assert _controls_in(out) == []
    assert "Zürich" in out  # non-ASCII text stays readable
    assert json.loads(out) == value


def test_a_direction_name_is_shown_as_text(
    isolated_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from assay.cli.deep_cmd import print_directions
    from assay.protocols.deep.findings import FindingsStore, Review
    from assay.store.runs import RunStore

    run = RunStore(isolated_home, fsync=False).create("t", "deep", {})
    FindingsStore(run.dir, fsync=False).add_review(Review(1, f"[bold]{TITLE}", [], score=7.0))
    print_directions(run)
    out = capsys.readouterr().out
    assert "[bold]S1]0;T" in out  # markup shown as text, the escape removed
    assert _controls_in(out) == []
