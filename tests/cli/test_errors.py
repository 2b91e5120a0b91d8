"""What the machine refuses reaches the user as one line and a documented exit code: a path
that cannot be written, a browser that is not there, a port in use, a broker gone."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest
from typer.testing import CliRunner

from assay.cli import app
from assay.errors import UnavailableError
from tests.conftest import make_run

runner = CliRunner()


def one_error_line(output: str) -> str:
    """The output's only line, which must be the error (no traceback, nothing else)."""
    assert "Traceback" not in output
    lines = output.strip().splitlines()
    assert len(lines) == 1, output
    assert lines[0].startswith("error: "), output
    return lines[0]


def test_export_into_a_folder_that_does_not_exist_is_one_line(
    isolated_home: Path, tmp_path: Path
) -> None:
    run = make_run(isolated_home)
    target = tmp_path / "missing" / "dir" / "x.html"
    result = runner.invoke(app, ["export", run.name, "-o", str(target)])
    assert result.exit_code == 2
    line = one_error_line(result.output)
    assert str(target) in line and f"there is no directory {tmp_path / 'missing'}" in line


def test_export_onto_a_directory_is_one_line(isolated_home: Path, tmp_path: Path) -> None:
    run = make_run(isolated_home)
    result = runner.invoke(app, ["export", run.name, "-o", str(tmp_path)])
    assert result.exit_code == 2
    assert f"{tmp_path} is a directory" in one_error_line(result.output)


def test_debug_still_shows_the_traceback_of_an_os_error(
    isolated_home: Path, tmp_path: Path
) -> None:
    run = make_run(isolated_home)
    result = runner.invoke(app, ["--debug", "export", run.name, "-o", str(tmp_path)])
    assert result.exit_code == 2
    assert "Traceback" in result.output and "IsADirectoryError" in result.output


@pytest.mark.parametrize(
    ("name", "problem"), [("no-chromium", "there is no such file"), ("", "it is not a file")]
)
def test_a_chromium_setting_that_names_no_program_is_one_line(
    isolated_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str, problem: str
) -> None:
    run = make_run(isolated_home)
    chromium = tmp_path / name  # "": the folder itself
    monkeypatch.setenv("ASSAY_CHROMIUM", str(chromium))
    result = runner.invoke(app, ["export", run.name, "-f", "pdf", "-o", str(tmp_path / "r.pdf")])
    assert result.exit_code == 2
    line = one_error_line(result.output)
    assert f"ASSAY_CHROMIUM is '{chromium}', but {problem}" in line
    assert not (tmp_path / "r.pdf").exists()


def test_a_reader_that_goes_away_ends_the_command_quietly(
    isolated_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from assay.cli import run_views

    def closed(*args: object, **kwargs: object) -> None:
        raise BrokenPipeError(32, "Broken pipe")

    make_run(isolated_home)
    monkeypatch.setattr(run_views, "runs_table", closed)
    result = runner.invoke(app, ["runs"])
    assert result.exit_code == 1
    assert "Traceback" not in result.output and "error" not in result.output


@pytest.mark.parametrize(
    ("command", "host"),
    [
        (["serve"], "127.0.0.1"),
        (["serve"], "0.0.0.0"),
        (["mcp", "--transport", "http"], "127.0.0.1"),
    ],
)
def test_serving_on_a_port_in_use_is_one_line_exit_8_and_prints_no_address(
    command: list[str], host: str
) -> None:
    with socket.create_server(("127.0.0.1", 0)) as taken:  # only loopback is ever opened
        port = taken.getsockname()[1]
        result = runner.invoke(app, [*command, "--host", host, "--port", str(port)])
    assert result.exit_code == UnavailableError.exit_code == 8
    line = one_error_line(result.output)  # no "assay serve: http://…", no "?token="
    assert f"cannot serve on http://{host}:{port}/: the port is in use" in line


def test_serve_prints_the_port_it_bound(monkeypatch: pytest.MonkeyPatch) -> None:
    import uvicorn

    served: list[int] = []
    monkeypatch.setattr(uvicorn.Server, "run", lambda server, sockets: served.extend(
        s.getsockname()[1] for s in sockets))  # fmt: skip
    result = runner.invoke(app, ["serve", "--port", "0"])
    assert result.exit_code == 0, result.output
    assert served and served[0] != 0
    assert result.output.splitlines()[0] == f"assay serve: http://127.0.0.1:{served[0]}/"


@pytest.mark.parametrize(
    "args",
    [
        ["research", "How tall is it?", "--search", "googl"],
        ["serve", "--allow-search", "googl", "--port", "0"],  # nor can a server offer one
    ],
)
def test_an_unknown_search_provider_is_refused_before_any_run(
    isolated_home: Path, args: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import uvicorn

    from assay.gather.search.registry import search_provider_names

    for owner in (uvicorn, uvicorn.Server):  # a server that did start must not block the test
        monkeypatch.setattr(owner, "run", lambda *args, **kwargs: None)
    result = runner.invoke(app, args)
    assert result.exit_code == 2
    known = ", ".join(search_provider_names())
    assert one_error_line(result.output) == f"error: unknown search plugin 'googl' (known: {known})"
    assert not (isolated_home / "runs").exists()  # the API's 400 says the same, and starts none
