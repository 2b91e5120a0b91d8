"""``assay serve``: the web app, the REST API and the SSE streams (the ``web`` extra)."""

from __future__ import annotations

from typing import Annotated

import typer

from assay.cli.listen import bind_listener, serve_on, shown_address
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
    public_name: Annotated[
        list[str] | None,
        typer.Option(
            "--public-name",
            metavar="NAME",
            help="A host name the server answers under besides loopback ones, e.g. behind "
            "a proxy (repeatable).",
            show_default=False,
        ),
    ] = None,
    *,
    options: CommonOptions,
) -> None:
    """Serve the web UI and the API (/api/v1, docs at /docs) over this home's runs.

    Runs started here use these options; a request may pick another model, search
    provider or endpoint only among those the --allow-* options offer, or bring its own
    key (api_key) for its own model endpoint: the server's keys go nowhere a request chose.
    """
    try:
        import uvicorn  # noqa: F401  (serve_on runs it; missing, it is the web extra)

        from assay.web.app import ServerConfig, create_app
        from assay.web.security import is_loopback, new_token
    except ImportError:
        raise UserError("assay serve needs the web extra: pip install 'assay[web]'") from None
    if token is None and not is_loopback(host):
        token = new_token()
    settings = options.settings()
    config = ServerConfig(
        settings, token=token, max_runs=max_runs, choices=options.served_choices(settings),
        public_names=frozenset(public_name or ()),
    )  # fmt: skip
    app = create_app(config)
    listener = bind_listener(host, port)  # before the address (and its token) is printed
    address = shown_address(host, listener.getsockname()[1])
    console.print(f"assay serve: {address}", markup=False, highlight=False)
    if token:
        console.print(f"open {address}?token={token}", markup=False, highlight=False)
        console.print("API clients send: Authorization: Bearer <token>", markup=False)
    serve_on(listener, app)
