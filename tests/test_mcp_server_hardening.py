"""`assay mcp` under attack: its keys stay with its endpoints; bad arguments are one line."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

import pytest

import assay.models
from assay.config import load_settings
from assay.lab import Lab
from tests.serve_fakes import recording_endpoint

pytestmark = pytest.mark.anyio
SERVER_OPENAI_KEY = "sk-server-Openai77LentKey"


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def _text(result: Any) -> str:
    return "".join(getattr(part, "text", "") for part in result.content)


async def test_a_tool_call_cannot_send_the_servers_key_to_another_providers_endpoint(
    lab: Lab, isolated_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from mcp import Client

    from assay.mcp_server import build_server

    monkeypatch.setenv("OPENAI_API_KEY", SERVER_OPENAI_KEY)
    with recording_endpoint() as fake, assay.models.model_requests_allowed(True):
        # the server's endpoint is configured for its anthropic model, not for openai
        settings = load_settings(home=isolated_home, search="searxng",
                                 searxng_url=lab.sites[0], allow_hosts=["127.0.0.0/8"],
                                 model="anthropic:claude-test", base_url=fake.url)  # fmt: skip
        async with Client(build_server(settings)) as client:
            lent = await client.call_tool("research", {"topic": "lighthouse", "model": "openai:x"})
            assert lent.is_error and "not offered" in _text(lent), _text(lent)
            other = await client.call_tool("ask", {"question": "lighthouse", "search": "brave"})
            assert other.is_error and "not offered" in _text(other), _text(other)
    assert SERVER_OPENAI_KEY not in " ".join(fake.authorizations())
    assert fake.requests == []


@pytest.mark.parametrize(
    "tool, arguments, named",
    [("research", {"topic": ""}, "topic"), ("research", {"topic": "x", "sources": 99}, "sources"),
     ("deep", {"topic": "x", "max_directions": 0}, "max_directions"),
     ("web_research", {"topic": "x", "urls": ["u"] * 30}, "urls")],
)  # fmt: skip
async def test_an_argument_the_run_cannot_take_is_one_clear_line(
    isolated_home: Path, caplog: pytest.LogCaptureFixture, tool: str, arguments: dict[str, Any],
    named: str,
) -> None:  # fmt: skip
    from mcp import Client

    from assay.mcp_server import build_server

    caplog.set_level(logging.INFO)
    async with Client(build_server(load_settings(home=isolated_home))) as client:
        result = await client.call_tool(tool, arguments)
    text = _text(result)
    assert result.is_error and named in text and "\n" not in text, text
    assert not [r for r in caplog.records if r.exc_info], "a traceback was logged"


async def test_the_http_transport_guards_every_loopback_address_against_rebinding() -> None:
    from mcp.server.transport_security import TransportSecurityMiddleware
    from starlette.requests import Request

    from assay.mcp_server import http_security

    middleware = TransportSecurityMiddleware(http_security("127.0.0.2"))

    async def status(host: str, origin: str | None = None) -> int | None:
        headers = [(b"host", host.encode()), (b"content-type", b"application/json")]
        if origin:
            headers.append((b"origin", origin.encode()))
        request = Request({"type": "http", "method": "POST", "headers": headers, "path": "/mcp"})
        refused = await middleware.validate_request(request, is_post=True)
        return None if refused is None else refused.status_code

    assert await status("127.0.0.2:8001") is None and await status("localhost:8001") is None
    assert await status("127.0.0.2.evil.example:8001") == 421
    assert await status("127.evil.example:8001") == 421
    assert await status("127.0.0.2:8001", "http://evil.example") == 403
