"""Hostile text and files: no terminal escapes, no markup, no traceback, no lost records."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from assay.cli import synth_cmd
from assay.cli.app import app
from assay.cli.output import plain, shown
from assay.config import load_settings
from assay.errors import ConfigError
from assay.gather.extract import extract
from assay.gather.index import LocalIndex
from assay.lab.corpus import _read_path
from assay.protocols.synth import SynthResult
from tests.conftest import make_run

ESCAPES = "\x1b]0;pwned\x07\x1b[31mred\x1b[0m\x9b2J\x00\r\n"


def test_extraction_strips_control_characters() -> None:
    html = f"<html><head><title>T{ESCAPES}</title></head><body><p>Fine{ESCAPES}text.</p></body>"
    for found in (
        extract(html.encode(), "text/html"),
        extract(f"plain {ESCAPES} text".encode(), "text/plain"),
    ):
        for value in (found.text, found.title or ""):
            assert not any(ord(c) < 32 and c not in "\n\t\f" for c in value), repr(value)
            assert not any(0x7F <= ord(c) <= 0x9F for c in value), repr(value)
    assert "red" in extract(html.encode(), "text/html").text


def test_what_reaches_a_terminal_has_no_escapes_and_no_markup() -> None:
    assert "\x1b" not in plain(ESCAPES) and "\x07" not in plain(ESCAPES)
    assert plain("page\fnext") == "page\nnext"
    assert shown("[/]") == "\\[/]"


@pytest.mark.parametrize("command", ["show", "verify", "resume"])
def test_a_run_id_that_looks_like_markup_is_a_one_line_error(command: str) -> None:
    make_run(load_settings().home)
    result = CliRunner().invoke(app, [command, "[/]"])
    assert result.exit_code == 2, result.output
    assert "no run matches '[/]'" in result.output
    assert "Traceback" not in result.output


def test_runs_and_show_print_a_markup_topic_as_text(isolated_home: Path) -> None:
    run_dir = make_run(isolated_home, topic="[bold]x[/] [/] \x1b]0;t\x07")
    listed = CliRunner().invoke(app, ["runs"], terminal_width=200)
    shown_run = CliRunner().invoke(app, ["show", run_dir.name])
    for result in (listed, shown_run):
        assert result.exit_code == 0, result.output
        assert "\x1b" not in result.output
    assert "[bold]x[/] [/]" in shown_run.output


def test_synth_prints_an_agent_named_like_markup(capsys: pytest.CaptureFixture[str]) -> None:
    result = SynthResult(
        run_id="r", run_dir="d", status="done", signal="[DONE]", reason="[DONE] [/]",
        output="out.md", report=None, searchers=["[/]", "[red]"], chief_author="[/]",
        matrix={"[/] → [red]": {"TRUE": 1}}, blocked={"phase 2: [/]": "[/] silent"},
        claims={}, usage={}, engine="extractive",
    )  # fmt: skip
    synth_cmd._print(result)
    out = capsys.readouterr()
    assert "chief author: [/]" in out.out and "[/] → [red]: 1 TRUE" in out.out


def test_a_binary_roster_is_a_one_line_error(tmp_path: Path) -> None:
    roster = tmp_path / "roster.yaml"
    roster.write_bytes(b"\xff\xfe\x00\x81binary\x00")
    result = CliRunner().invoke(
        app, ["synth", "topic", "--roster", str(roster), "--output", str(tmp_path / "o.md")]
    )
    assert result.exit_code == 2, result.output  # bad input: nothing starts (issue 25)
    assert "Traceback" not in result.output
    assert "not a text file" in result.output
    assert not (tmp_path / "o.md").exists()


@pytest.mark.parametrize(
    ("toml", "key"),
    [
        ("[fetch]\ntotal_timeout = 1e999\n", "fetch.total_timeout"),
        ("[fetch]\nread_timeout = nan\n", "fetch.read_timeout"),
        ("[fetch]\ncache_ttl = 1e12\n", "fetch.cache_ttl"),
        ("budget_time = inf\n", "budget_time"),
        ('allow_hosts = ["10.0.0.0/33"]\n', "allow_hosts"),
        ('allow_hosts = ["300.1.1.1"]\n', "allow_hosts"),
        ('allow_hosts = ["http://127.0.0.1/"]\n', "allow_hosts"),
        ('allow_hosts = ["a b"]\n', "allow_hosts"),
    ],
)
def test_a_bad_setting_is_a_one_line_error_naming_its_key(
    isolated_home: Path, toml: str, key: str
) -> None:
    (isolated_home / "config.toml").write_text(toml)
    with pytest.raises(ConfigError, match=rf"invalid setting {key}:") as raised:
        load_settings()
    assert "\n" not in str(raised.value)


def test_good_allow_list_entries_pass(isolated_home: Path) -> None:
    hosts = ["127.0.0.1", "10.0.0.0/8", "::1", "[::1]", "fd00::/8", "lab.test", "*.lab.test",
             ".corp.example", "localhost"]  # fmt: skip
    assert load_settings(allow_hosts=hosts).allow_hosts == hosts


def _jsonl_with_a_bad_line(path: Path) -> Path:
    lines = [
        json.dumps({"title": "Bees", "text": "Bees make honey."}),
        "",
        '{"title": "Broken", "text": ',
        json.dumps({"title": "Tides", "text": "Tides rise twice a day."}),
    ]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_a_bad_jsonl_line_is_skipped_and_named_with_its_true_number(tmp_path: Path) -> None:
    corpus = _jsonl_with_a_bad_line(tmp_path / "corpus.jsonl")
    with LocalIndex(tmp_path / "index.sqlite") as index:
        report = index.add_paths([corpus])
        assert report.documents == 2 and report.skipped == []
        assert len(report.notes) == 1 and report.notes[0].startswith(f"{corpus}:3: not JSON")
        assert index.search("tides") and index.search("honey")
    result = CliRunner().invoke(app, ["index", "add", str(corpus)])
    assert "warning:" in result.output and "corpus.jsonl:3: not JSON" in result.output
    assert "indexed 2 documents" in result.output


def test_the_lab_keeps_the_good_records_of_a_jsonl_corpus(tmp_path: Path) -> None:
    docs = _read_path(_jsonl_with_a_bad_line(tmp_path / "corpus.jsonl"))
    assert [d.title for d in docs] == ["Bees", "Tides"]
