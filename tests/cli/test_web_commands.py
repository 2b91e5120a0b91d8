"""The serve, export and mcp commands: lazy imports, token on a non-loopback host."""

from __future__ import annotations

import socket
import subprocess
import sys
from typing import Any

import pytest
from typer.testing import CliRunner

from assay.cli import app

runner = CliRunner()


def test_the_cli_loads_no_web_or_mcp_package_until_a_command_needs_it() -> None:
    probe = (
        "import sys, assay.cli.app; print([m for m in ('fastapi', 'uvicorn', 'starlette', "
        "'mcp', 'playwright', 'jinja2') if m in sys.modules])"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def loopback_listener(asked: dict[str, Any]) -> Any:
    """A stand-in for ``bind_listener`` that records the address asked for and listens on
    loopback only (tests never open a port on every interface)."""

    def bind(host: str, port: int) -> socket.socket:
        asked.update(host=host, port=port)
        return socket.create_server(("127.0.0.1", 0))

    return bind


def test_a_non_loopback_host_gets_a_generated_token(monkeypatch: pytest.MonkeyPatch) -> None:
    import uvicorn

    from assay.cli import serve_cmd

    asked: dict[str, Any] = {}
    monkeypatch.setattr(serve_cmd, "bind_listener", loopback_listener(asked))
    monkeypatch.setattr(uvicorn.Server, "run", lambda server, sockets=None: None)
    result = runner.invoke(app, ["serve", "--host", "0.0.0.0", "--port", "8123"])
    assert result.exit_code == 0, result.output
    assert asked == {"host": "0.0.0.0", "port": 8123}
    token = result.output.split("?token=")[1].split()[0]
    assert len(token) >= 24
    loopback = runner.invoke(app, ["serve", "--port", "0"])
    assert loopback.exit_code == 0 and "token" not in loopback.output


def test_mcp_refuses_an_open_http_host_and_an_unknown_transport() -> None:
    assert runner.invoke(app, ["mcp", "--transport", "http", "--host", "0.0.0.0"]).exit_code == 2
    assert runner.invoke(app, ["mcp", "--transport", "carrier-pigeon"]).exit_code == 2
