"""A topic must hold something; a file a user names is read only when regular, up to a cap."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from typer.testing import CliRunner

from assay.cli.app import app
from assay.config import load_settings
from assay.errors import BadInputError, ConfigError
from assay.keys import KeyStore
from assay.protocols.synth import load_roster
from assay.user_input import read_user_text, require_topic

runner = CliRunner()

ROSTER = "agents:\n  - {name: CC, role: MANAGER}\n"


def _topic_command(command: str, topic: str, tmp_path: Path) -> list[str]:
    tail = {
        "synth": ["--output", str(tmp_path / "o.md"), "--agent", "name=CC,role=MANAGER"],
        "web-research": ["--keyword", "lighthouse"],
        "deep": ["--output", str(tmp_path)],
    }.get(command, [])
    return [command, topic, *tail, "--quiet"]


@pytest.mark.parametrize("command", ["deep", "research", "ask", "web-research", "synth"])
@pytest.mark.parametrize("topic", ["", "   ", "\t\n", "\u200b\u00a0"])
def test_an_empty_topic_is_refused_before_any_run_starts(
    command: str, topic: str, isolated_home: Path, tmp_path: Path
) -> None:
    result = runner.invoke(app, _topic_command(command, topic, tmp_path))
    assert result.exit_code == BadInputError.exit_code, result.output
    assert "error:" in result.output and "Traceback" not in result.output
    assert len(result.output.strip().splitlines()) == 1, result.output
    assert not (isolated_home / "runs").exists() or not any((isolated_home / "runs").iterdir())
    assert not (tmp_path / "o.md").exists()


def test_require_topic_keeps_a_real_topic_as_given() -> None:
    assert require_topic("  Why do rivers meander? ") == "  Why do rivers meander? "
    with pytest.raises(BadInputError, match="the question is empty"):
        require_topic("\u2003", "question")


def test_a_roster_linked_to_dev_zero_is_refused_without_reading_it(tmp_path: Path) -> None:
    roster = tmp_path / "roster.yaml"
    roster.symlink_to("/dev/zero")
    with pytest.raises(BadInputError, match="not a regular file"):
        load_roster(roster)  # before: read /dev/zero until memory ran out


def test_a_fifo_roster_is_refused_without_waiting_for_a_writer(tmp_path: Path) -> None:
    roster = tmp_path / "roster.yaml"
    os.mkfifo(roster)
    raised: list[BaseException] = []

    def load() -> None:
        try:
            load_roster(roster)
        except BaseException as exc:  # handed over to the test thread
            raised.append(exc)

    reader = threading.Thread(target=load, daemon=True)
    reader.start()
    reader.join(5)
    if reader.is_alive():  # before: open() waited for a writer; give it one and fail
        with roster.open("w"):
            pass
        pytest.fail("reading a FIFO roster waited for a writer")
    assert len(raised) == 1 and isinstance(raised[0], BadInputError)
    assert "not a regular file" in str(raised[0])


def test_a_roster_over_the_cap_is_a_one_line_error(tmp_path: Path) -> None:
    roster = tmp_path / "roster.yaml"
    roster.write_text(ROSTER + "#" * 2_000_000 + "\n", encoding="utf-8")
    result = runner.invoke(
        app, ["synth", "topic", "--roster", str(roster), "--output", str(tmp_path / "o.md")]
    )
    assert result.exit_code == 2, result.output  # bad input: nothing starts (issue 25)
    assert not (tmp_path / "o.md").exists()
    assert "larger than 1,000,000 bytes" in result.output
    assert "Traceback" not in result.output


def test_a_key_file_reference_to_dev_zero_is_a_config_error(isolated_home: Path) -> None:
    store = KeyStore(isolated_home, {"EXA_API_KEY": "$file:/dev/zero"})
    with pytest.raises(ConfigError, match="EXA_API_KEY: cannot read /dev/zero: not a regular"):
        store.get("EXA_API_KEY")  # before: MemoryError


def test_a_key_file_reference_over_the_cap_is_a_config_error(
    isolated_home: Path, tmp_path: Path
) -> None:
    secret = tmp_path / "secret"
    secret.write_bytes(b"k" * 100_000)
    with pytest.raises(ConfigError, match="larger than 64,000 bytes"):
        KeyStore(isolated_home, {"EXA_API_KEY": f"$file:{secret}"}).get("EXA_API_KEY")


def test_the_cli_names_a_dev_zero_key_reference_in_one_line(isolated_home: Path) -> None:
    (isolated_home / "config.toml").write_text(
        '[keys]\nOPENAI_API_KEY = "$file:/dev/zero"\n', encoding="utf-8"
    )
    result = runner.invoke(
        app, ["research", "Halvorsen Lighthouse", "--model", "openai:gpt-4o-mini", "--quiet"]
    )
    assert result.exit_code == ConfigError.exit_code, result.output
    assert "cannot read /dev/zero: not a regular file" in result.output
    assert "Traceback" not in result.output and "MemoryError" not in result.output


@pytest.mark.parametrize("name", ["config.toml", "keys.json"])
def test_home_files_linked_to_a_device_are_refused(isolated_home: Path, name: str) -> None:
    (isolated_home / name).symlink_to("/dev/zero")
    with pytest.raises(ConfigError, match="not a regular file"):
        KeyStore(load_settings().home).names()


def test_read_user_text_reads_at_most_one_byte_past_the_cap(tmp_path: Path) -> None:
    path = tmp_path / "f.txt"
    path.write_text("x" * 10, encoding="utf-8")
    assert read_user_text(path, limit=10, label="f") == "x" * 10
    with pytest.raises(BadInputError, match="f: larger than 9 bytes"):
        read_user_text(path, limit=9, label="f")
    with pytest.raises(BadInputError, match="f: No such file"):
        read_user_text(tmp_path / "missing", limit=9, label="f")


def test_a_huge_workspace_file_is_read_only_up_to_its_cap(tmp_path: Path) -> None:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    with (workspace / "huge.log").open("wb") as handle:
        handle.write(b"the widget cache holds 40 entries\n" * 300)  # text, then zeros
        handle.truncate(3_000_000_000)  # sparse: 3 GB to read, nothing on the disk
    # In a process that may not hold 3 GB: before, the whole file was read, then cut.
    script = (
        "import resource, sys\n"
        "from pathlib import Path\n"
        "from assay.protocols.research.workspace import MAX_FILE_BYTES, _text\n"
        "resource.setrlimit(resource.RLIMIT_AS, (1_500_000_000, 1_500_000_000))\n"
        "text = _text(Path(sys.argv[1]))\n"
        "assert text is not None and text.startswith('the widget cache')\n"
        "assert len(text.encode()) == MAX_FILE_BYTES\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script, str(workspace / "huge.log")],
        capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-500:]
