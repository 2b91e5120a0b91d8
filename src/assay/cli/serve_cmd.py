"""``assay serve``: the web app, the REST API and the SSE streams (the ``web`` extra)."""

from __future__ import annotations

from typing import Annotated

import typer

from assay.cli.options import CommonOptions, with_server_options
from assay.cli.output import console
from assay.errors import UserError


@with_server_options
def serve(
    host: Annotated[str, typer.Option("--host", help="Address to bind.")] = "127.0.0.1",
    port: Annotated[int, typer.Option("--port", min=0, max=65535)] = 8000,
    token: Annotated[
        str | None,
        typer.Option(
            "--token",
            envvar="ASSAY_SERVE_TOKEN",
            help="Require this token on every request (one is generated for a non-loopback "
            "--host).",
        ),
    ] = None,
    max_runs: Annotated[
        int, typer.Option("--max-runs", min=1, max=64, help="Runs working at once.")
    ] = 4,
    *,
    options: CommonOptions,
) -> None:
    """Serve the web UI and the API (/api/v1, docs at /docs) over this home's runs.

    Runs started here use these options unless the request gives its own search or model.
    """
    try:
        import uvicorn

        from assay.web.app import ServerConfig, create_app
        from assay.web.security import is_loopback, new_token
    except ImportError:
        raise UserError("assay serve needs the web extra: pip install 'assay[web]'") from None
    if token is None and not is_loopback(host):
        token = new_token()
    app = create_app(ServerConfig(options.settings(), token=token, max_runs=max_runs))
    shown_host = f"[{host}]" if ":" in host else host
    address = f"http://{shown_host}:{port}/"
    console.print(f"assay serve: {address}", markup=False, highlight=False)
    if token:
        console.print(f"open {address}?token={token}", markup=False, highlight=False)
        console.print("API clients send: Authorization: Bearer <token>", markup=False)
    uvicorn.run(app, host=host, port=port, log_level="warning")
