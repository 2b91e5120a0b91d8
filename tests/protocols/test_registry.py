"""A protocol from outside the package, registered by entry point, run through every interface.

The plugin is ``tests/toy_protocol.py``; the fixture installs it the way a distribution
would (a ``.dist-info`` folder whose ``entry_points.txt`` names it, on ``sys.path``).
"""

from __future__ import annotations

import asyncio
import importlib
import json
import tomllib
from pathlib import Path

import pytest
from typer.testing import CliRunner

from assay.cli import app
from assay.config import load_settings
from assay.errors import ConfigError
from assay.protocols import registry
from assay.protocols.builtin import RESEARCH
from tests.paths import ROOT
from tests.web.test_api import api_client, wait_done


@pytest.fixture
def toy(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, isolated_home: Path) -> Path:
    """``toy`` installed as a plugin (plus two bad ones); the home its runs go to."""
    dist = tmp_path / "site" / "toy_protocol-0.1.dist-info"
    dist.mkdir(parents=True)
    (dist / "METADATA").write_text(
        "Metadata-Version: 2.1\nName: toy-protocol\nVersion: 0.1\n", encoding="utf-8"
    )
    (dist / "entry_points.txt").write_text(
        "[assay.protocols]\ntoy = tests.toy_protocol:TOY\nresearch = tests.toy_protocol:TOY\n"
        "broken = tests.toy_protocol:NOT_A_SPEC\n",
        encoding="utf-8",
    )
    monkeypatch.syspath_prepend(str(tmp_path / "site"))
    importlib.invalidate_caches()
    return isolated_home


def test_the_built_ins_are_the_entry_points_pyproject_declares() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert project["project"]["entry-points"]["assay.protocols"] == registry.BUILT_INS
    for name in registry.BUILT_INS:
        assert registry.protocol_spec(name).name == name


def test_a_plugin_is_registered_but_cannot_replace_a_built_in(toy: Path) -> None:
    assert registry.protocol_names() == [*registry.BUILT_INS, "broken", "toy"]
    assert registry.protocol_spec("research") is RESEARCH
    assert not registry.resumable("toy") and registry.resumable("deep")
    with pytest.raises(ConfigError, match="does not load a ProtocolSpec"):
        registry.protocol_spec("broken")
    with pytest.raises(ConfigError, match=r"unknown protocol 'toys'; did you mean 'toy'\?"):
        registry.protocol_spec("toys")


def test_the_cli_runs_a_plugin_protocol(toy: Path) -> None:
    runner = CliRunner()
    shown = runner.invoke(app, ["run", "toy", "tides", "--set", "sources=2", "--json"])
    assert shown.exit_code == 0, shown.output
    result = json.loads(shown.output)
    assert result["answer"] == "TIDES (2 sources)" and result["status"] == "done"
    assert result["report"] == str(toy / "runs" / result["run_id"] / "report.md")
    plain = runner.invoke(app, ["run", "toy", "tides", "--set", "shout=false", "-q"])
    assert plain.exit_code == 0, plain.output
    assert "tides (1 sources)" in plain.output and "(toy, done)" in plain.output
    bad = runner.invoke(app, ["run", "toy", "tides", "--set", "sources=many"])
    assert bad.exit_code == 2 and "toy: sources:" in bad.output
    unknown = runner.invoke(app, ["run", "nope", "tides"])
    assert unknown.exit_code == 2 and "unknown protocol 'nope'" in unknown.output
    listed = json.loads(runner.invoke(app, ["config", "show", "--json"]).output)
    assert "toy" in listed["plugins"]["protocols"]


def test_the_rest_api_runs_a_plugin_protocol(toy: Path) -> None:
    from assay.web.app import ServerConfig, create_app

    web = create_app(ServerConfig(load_settings(home=toy)))

    async def scenario() -> None:
        async with api_client(web) as client:
            started = await client.post(
                "/api/v1/runs", json={"protocol": "toy", "topic": "tides", "sources": 3}
            )
            assert started.status_code == 202, started.text
            detail = await wait_done(client, started.json()["id"])
            assert detail["status"] == "done" and detail["run"]["protocol"] == "toy"
            report = await client.get(f"/api/v1/runs/{detail['run']['id']}/report?format=md")
            assert "TIDES (3 sources)" in report.text
            for page in ("/", f"/runs/{detail['run']['id']}"):  # the web app shows its run
                shown = await client.get(page)
                assert shown.status_code == 200 and "tides" in shown.text, page
            unknown = await client.post("/api/v1/runs", json={"protocol": "nope", "topic": "x"})
            assert 400 <= unknown.status_code < 500 and "unknown protocol" in unknown.text

    asyncio.run(scenario())


def test_mcp_offers_a_plugin_protocol_as_a_tool(toy: Path) -> None:
    from mcp import Client

    from assay.mcp_server import build_server

    async def scenario() -> None:
        async with Client(build_server(load_settings(home=toy))) as client:
            tools = {t.name for t in (await client.list_tools()).tools}
            assert {"toy", "research", "verify"} <= tools
            assert "broken" not in tools  # a plugin that does not load is left out
            result = await client.call_tool("toy", {"topic": "tides"})
            assert not result.is_error, result.content
            outcome = result.structured_content
            # the wire format's own default for sources (StartRun's) reached the request
            assert outcome["answer"] == "TIDES (5 sources)" and outcome["protocol"] == "toy"
            assert outcome["status"] == "done" and outcome["report_path"]

    asyncio.run(scenario())
