"""``assay mcp`` driven by the SDK's own client over stdio, against the lab."""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path
from typing import Any

import pytest

from assay.lab import Lab

pytestmark = pytest.mark.anyio
TOOLS = {"research", "ask", "web_research", "deep", "verify", "show", "runs"}


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def server_params(lab: Lab, home: Path) -> Any:
    from mcp import StdioServerParameters

    args = ["-m", "assay.cli", "mcp", "--home", str(home), "--search", "searxng",
            "--searxng-url", lab.sites[0], "--allow-host", "127.0.0.0/8"]  # fmt: skip
    env = {"PATH": os.environ.get("PATH", ""), "ASSAY_FSYNC": "never", "HOME": str(home)}
    return StdioServerParameters(command=sys.executable, args=args, env=env)


@pytest.mark.slow
async def test_research_show_verify_and_runs_over_stdio(lab: Lab, isolated_home: Path) -> None:
    from mcp import Client
    from mcp.client.stdio import stdio_client

    progress: list[tuple[float, str | None]] = []

    async def on_progress(done: float, total: float | None, message: str | None) -> None:
        progress.append((done, message))

    # an explicit errlog: stdio_client's default is the sys.stderr of its import time,
    # which under pytest may be a capture object without a file descriptor
    errlog = tempfile.TemporaryFile("w+")  # noqa: SIM115
    transport = stdio_client(server_params(lab, isolated_home), errlog=errlog)
    async with Client(transport, read_timeout_seconds=60) as client:
        listed = await client.list_tools()
        tools = {t.name: t for t in listed.tools}
        assert set(tools) == TOOLS
        assert tools["research"].input_schema["required"] == ["topic"]
        assert "answer" in tools["research"].output_schema["properties"]
        result = await client.call_tool(
            "research", {"topic": "How tall is the Halvorsen Lighthouse?", "sources": 3},
            progress_callback=on_progress,
        )  # fmt: skip
        assert not result.is_error, result.content
        outcome = result.structured_content
        assert outcome["status"] == "done" and "41" in outcome["answer"]
        assert sum(outcome["claims"].values()) >= 1 and outcome["sources"] == 3
        run_dir = isolated_home / "runs" / outcome["run_id"]
        assert outcome["report_path"] == str(run_dir / "report.md")
        # every event of the run reached the client as progress, in order
        assert [n for n, _ in progress] == list(range(1, len(progress) + 1))
        assert any(m and m.startswith("tool.open_url") for _, m in progress)
        run_id = outcome["run_id"]
        shown = (await client.call_tool("show", {"run_id": run_id})).structured_content
        assert shown["outcome"]["run_id"] == run_id and shown["report"].startswith("# ")
        verified = (await client.call_tool("verify", {"run_id": run_id})).structured_content
        assert verified["ok"] is True and verified["claims"] == sum(outcome["claims"].values())
        runs = (await client.call_tool("runs", {})).structured_content
        assert [r["id"] for r in runs["result"]] == [run_id]
        missing = await client.call_tool("show", {"run_id": "no-such-run"})
        assert missing.is_error
    errlog.close()


async def test_show_answers_with_the_reports_answer(
    lab_research_run: Path, isolated_home: Path
) -> None:
    import shutil

    from mcp import Client

    from assay.config import load_settings
    from assay.mcp_server import build_server
    from assay.report.reading import report_answer

    shutil.copytree(lab_research_run, isolated_home / "runs" / lab_research_run.name)
    async with Client(build_server(load_settings(home=isolated_home))) as client:
        shown = await client.call_tool("show", {"run_id": lab_research_run.name})
    answer = shown.structured_content["outcome"]["answer"]
    assert answer == report_answer((lab_research_run / "report.md").read_text(encoding="utf-8"))
    assert "41 metres" in answer
