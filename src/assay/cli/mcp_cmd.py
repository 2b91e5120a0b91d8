"""``assay mcp``: research as MCP tools, over stdio or streamable HTTP (the ``mcp`` extra)."""

from __future__ import annotations

from typing import Annotated

import typer

from assay.cli.listen import bind_listener, serve_on
from assay.cli.options import CommonOptions, with_server_options
from assay.errors import BadInputError, UserError


@with_server_options
def mcp(
    transport: Annotated[
        str, typer.Option("--transport", help="stdio, or http (streamable HTTP at /mcp).")
    ] = "stdio",
    host: Annotated[str, typer.Option("--host", help="http: a loopback address.")] = "127.0.0.1",
    port: Annotated[int, typer.Option("--port", min=1, max=65535)] = 8001,
    *,
    options: CommonOptions,
) -> None:
    """Serve the tools research, ask, web_research, deep, verify, show and runs over MCP."""
    try:
        from assay.mcp_server import build_server, http_security
    except ImportError:
        raise UserError("assay mcp needs the mcp extra: pip install 'assay[mcp]'") from None
    from assay.web.security import is_loopback

    if transport not in {"stdio", "http"}:
        raise BadInputError(f"--transport must be stdio or http, not {transport!r}")
    if not is_loopback(host):
        raise BadInputError("the MCP HTTP transport has no authentication: bind a loopback host")
    settings = options.settings()
    server = build_server(settings, options.served_choices(settings))
    if transport == "stdio":
        server.run("stdio")
    else:  # bound first, as serve does: a port in use is one line (exit 8), not uvicorn's 3
        listener = bind_listener(host, port)
        serve_on(listener, server.streamable_http_app(transport_security=http_security(host),
                                                      host=host))  # fmt: skip
