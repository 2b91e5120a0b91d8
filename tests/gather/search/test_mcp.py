"""MCP search provider: a real FastMCP-style server over stdio, and over streamable HTTP
served in-process (ASGI, no socket)."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import httpx2
import pytest

from assay.errors import ConfigError, MissingKeyError, ProviderError
from assay.gather.search import mcp
from assay.gather.search.mcp import McpSearch, McpSearchConfig
from assay.gather.search.web_search import web_search
from assay.keys import KeyStore

pytestmark = pytest.mark.anyio

SERVER = '''
import json, os, sys
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError

app = MCPServer("search-imitation", log_level="WARNING")
LOG = sys.argv[1]


@app.tool()
def search(query: str, max_results: int = 5, time_range: str | None = None) -> str:
    """Search the web; answers a JSON object with a results list."""
    with open(LOG, "a") as log:
        record = {"pid": os.getpid(), "query": query, "max_results": max_results,
                  "time_range": time_range}
        log.write(json.dumps(record) + "\\n")
    if query == "explode":
        raise ToolError("upstream search engine is down")
    if query == "prose":
        return "Title: Plain\\nURL: https://plain.example/\\nDescription: labelled text"
    token = os.environ.get("DEMO_SEARCH_TOKEN", "-")
    slug = query.replace(" ", "-")
    return json.dumps({"results": [
        {"url": f"https://mcp{n}.example/{slug}", "title": f"{query} {n}",
         "snippet": f"token={token}", "published_date": "2025-06-01"}
        for n in range(1, max_results + 1)
    ]})


@app.tool()
def echo(text: str) -> str:
    """Say it back."""
    return text


if __name__ == "__main__":
    app.run()
'''


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def server(tmp_path: Path) -> Iterator[tuple[list[str], Path]]:
    script = tmp_path / "search_server.py"
    script.write_text(SERVER, encoding="utf-8")
    log = tmp_path / "calls.jsonl"
    log.touch()
    yield [sys.executable, str(script), str(log)], log


def _calls(log: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]


def _settings(**values: Any) -> Any:
    fields: dict[str, Any] = {"mcp_command": None, "mcp_url": None, "mcp_tool": None, "mcp_env": []}
    fields.update(values)
    return SimpleNamespace(**fields)


async def test_stdio_server_end_to_end(
    server: tuple[list[str], Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    command, log = server
    monkeypatch.setenv("DEMO_SEARCH_TOKEN", "demo-token-xyz")
    settings = _settings(mcp_command=command, mcp_env=["DEMO_SEARCH_TOKEN"])
    async with httpx2.AsyncClient() as http:
        provider = mcp.create(settings, http=http, keys=KeyStore(tmp_path))
        results = await provider.search(["solar power", "wind"], max_results=2, time_range="month")
    assert [(r.query, r.rank, r.url) for r in results] == [
        ("solar power", 1, "https://mcp1.example/solar-power"),
        ("solar power", 2, "https://mcp2.example/solar-power"),
        ("wind", 1, "https://mcp1.example/wind"),
        ("wind", 2, "https://mcp2.example/wind"),
    ]
    assert results[0].title == "solar power 1"
    assert results[0].snippet == "token=demo-token-xyz"  # the key reached the server's env
    assert results[0].published_date == "2025-06-01"
    assert results[0].provider == "mcp"
    calls = _calls(log)
    assert {(c["query"], c["max_results"], c["time_range"]) for c in calls} == {
        ("solar power", 2, "month"),
        ("wind", 2, "month"),
    }
    assert len({c["pid"] for c in calls}) == 1  # one session for the whole call


async def test_one_session_serves_a_whole_web_search(
    server: tuple[list[str], Path], tmp_path: Path
) -> None:
    command, log = server
    async with httpx2.AsyncClient() as http:
        provider = mcp.create(_settings(mcp_command=command), http=http, keys=KeyStore(tmp_path))
        async with provider:
            outcome = await web_search(
                provider, ["alpha", "explode", "prose", "beta"], max_results=1
            )
    assert outcome.errors.keys() == {"explode"}
    assert "upstream search engine is down" in outcome.errors["explode"]
    assert [(e["query"], [r["url"] for r in e["results"]]) for e in outcome.to_json()] == [
        ("alpha", ["https://mcp1.example/alpha"]),
        ("explode", []),
        ("prose", ["https://plain.example/"]),
        ("beta", ["https://mcp1.example/beta"]),
    ]
    assert len({c["pid"] for c in _calls(log)}) == 1


async def test_a_server_that_dies_at_start(tmp_path: Path) -> None:
    crash = [
        sys.executable,
        "-c",
        "import sys; print('boom: bad config', file=sys.stderr); sys.exit(3)",
    ]
    async with httpx2.AsyncClient() as http:
        provider = mcp.create(_settings(mcp_command=crash), http=http, keys=KeyStore(tmp_path))
        with pytest.raises(ProviderError) as caught:
            await provider.search(["q"], max_results=3)
    message = str(caught.value)
    assert message.startswith("mcp: could not connect to `")
    assert "boom: bad config" in message


async def test_a_command_that_does_not_exist(tmp_path: Path) -> None:
    missing = [str(tmp_path / "no-such-server")]
    async with httpx2.AsyncClient() as http:
        provider = mcp.create(_settings(mcp_command=missing), http=http, keys=KeyStore(tmp_path))
        with pytest.raises(ConfigError, match="cannot start"):
            await provider.search(["q"], max_results=3)


async def test_a_missing_key_for_the_server_names_the_variable(tmp_path: Path) -> None:
    settings = _settings(mcp_command="some-server", mcp_env=["SEARCH_SERVER_API_KEY"])
    async with httpx2.AsyncClient() as http:
        with pytest.raises(MissingKeyError, match="SEARCH_SERVER_API_KEY"):
            mcp.create(settings, http=http, keys=KeyStore(tmp_path))


@pytest.mark.parametrize(
    "values",
    [
        {},
        {"mcp_command": "server", "mcp_url": "https://mcp.example/mcp"},
        {"mcp_command": "", "mcp_url": "  "},
    ],
)
def test_exactly_one_server_is_required(values: dict[str, Any]) -> None:
    with pytest.raises(ConfigError) as caught:
        McpSearchConfig.from_settings(_settings(**values))
    assert "--mcp-command" in str(caught.value)
    assert "ASSAY_MCP_URL" in str(caught.value)


def test_url_must_be_http() -> None:
    with pytest.raises(ConfigError, match="http"):
        McpSearchConfig.from_settings(_settings(mcp_url="file:///tmp/server"))


def test_command_string_is_split_like_a_shell() -> None:
    config = McpSearchConfig.from_settings(
        _settings(mcp_command="npx -y '@scope/search server'", mcp_env="A_KEY, B_KEY")
    )
    assert config.command == ("npx", "-y", "@scope/search server")
    assert config.env_keys == ("A_KEY", "B_KEY")


async def test_streamable_http_server(tmp_path: Path) -> None:
    from mcp.server.mcpserver import MCPServer

    app = MCPServer("http-search-imitation", log_level="WARNING")

    @app.tool()
    def find(q: str, limit: int = 10) -> dict[str, Any]:
        """Search; answers structured content."""
        return {
            "results": [
                {"link": f"https://h{n}.example/{q}", "name": f"{q} {n}"} for n in range(limit)
            ]
        }

    asgi = app.streamable_http_app(json_response=True, stateless_http=True)
    settings = _settings(mcp_url="http://127.0.0.1:8000/mcp", mcp_tool="find")
    async with app.session_manager.run():
        transport = httpx2.ASGITransport(asgi)
        async with httpx2.AsyncClient(transport=transport) as http:
            provider = mcp.create(settings, http=http, keys=KeyStore(tmp_path))
            results = await provider.search(["q1"], max_results=2)
    assert [(r.rank, r.url, r.title) for r in results] == [
        (1, "https://h0.example/q1", "q1 0"),
        (2, "https://h1.example/q1", "q1 1"),
    ]


async def test_a_named_tool_that_is_not_there(tmp_path: Path) -> None:
    from mcp.server.mcpserver import MCPServer

    app = MCPServer("tools-imitation", log_level="WARNING")

    @app.tool()
    def search(query: str) -> str:
        """Search."""
        return "[]"

    @app.tool()
    def echo(text: str) -> str:
        """Say it back."""
        return text

    asgi = app.streamable_http_app(json_response=True, stateless_http=True)
    settings = _settings(mcp_url="http://127.0.0.1:8000/mcp", mcp_tool="web_search")
    transport = httpx2.ASGITransport(asgi)
    async with app.session_manager.run(), httpx2.AsyncClient(transport=transport) as http:
        provider = mcp.create(settings, http=http, keys=KeyStore(tmp_path))
        with pytest.raises(ConfigError) as caught:
            await provider.search(["q"], max_results=3)
    assert "no tool named 'web_search'" in str(caught.value)
    assert "search, echo" in str(caught.value)


def _tool(name: str, properties: dict[str, Any], required: list[str] | None = None) -> Any:
    schema = {"type": "object", "properties": properties, "required": required or []}
    return SimpleNamespace(name=name, input_schema=schema)


def test_tool_choice_and_arguments() -> None:
    tools = [
        _tool("echo", {"text": {"type": "string"}}),
        _tool(
            "search",
            {
                "query": {"type": "string"},
                "count": {"type": "integer", "maximum": 10},
                "time_range": {"type": "string", "enum": ["day", "month"]},
            },
        ),
    ]
    session = mcp._choose("client", tools, None)
    assert (session.tool, session.query_arg, session.count_arg, session.count_max) == (
        "search",
        "query",
        "count",
        10,
    )
    assert session.time_arg == "time_range"
    assert session.time_values == frozenset({"day", "month"})


def test_a_named_tool_may_take_another_string() -> None:
    tools = [_tool("lookup", {"terms": {"type": "string"}, "page": {"type": "integer"}}, ["terms"])]
    session = mcp._choose("client", tools, "lookup")
    assert (session.query_arg, session.count_arg, session.time_arg) == ("terms", None, None)


def test_no_tool_takes_a_query() -> None:
    with pytest.raises(ConfigError, match="no tool takes a string `query`"):
        mcp._choose("client", [_tool("echo", {"text": {"type": "string"}})], None)


class _FakeClient:
    """Records call_tool arguments; answers structured content."""

    def __init__(self) -> None:
        self.arguments: list[dict[str, Any]] = []

    async def call_tool(self, name: str, arguments: dict[str, Any]) -> Any:
        self.arguments.append(arguments)
        return SimpleNamespace(content=[], structured_content={"results": []}, is_error=False)


async def test_arguments_respect_the_schema() -> None:
    client = _FakeClient()
    tools = [
        _tool(
            "search",
            {
                "query": {"type": "string"},
                "max_results": {"type": "integer", "maximum": 5},
                "time_range": {"type": "string", "enum": ["day", "month"]},
            },
        )
    ]
    session = mcp._choose(client, tools, None)
    async with httpx2.AsyncClient() as http:
        provider = McpSearch(McpSearchConfig(command=("x",)), http=http)
        await provider._one(session, "a", 8, "month")
        await provider._one(session, "b", 3, "week")
    assert client.arguments == [
        {"query": "a", "max_results": 5, "time_range": "month"},
        {"query": "b", "max_results": 3},  # "week" is not in the tool's enum
    ]
