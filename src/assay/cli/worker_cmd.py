"""``assay worker``: process the questions ``assay batch --broker`` enqueued."""

from __future__ import annotations

from typing import Annotated

import typer

from assay.cli.options import HomeOpt
from assay.cli.output import err_console, plain
from assay.errors import BadInputError


def worker(
    broker: Annotated[str, typer.Option("--broker", help="redis://HOST:PORT/DB")],
    threads: Annotated[
        int, typer.Option("--threads", min=1, max=32, help="Questions run at once.")
    ] = 2,
    heartbeat_timeout: Annotated[
        float,
        typer.Option(
            "--heartbeat-timeout",
            min=1.0,
            help="Seconds of silence before a worker counts as dead.",
        ),
    ] = 15.0,
    home: HomeOpt = None,
) -> None:
    """Run the questions a batch queued, until SIGTERM or Ctrl-C.

    A job is acknowledged when its run has ended. The worker runs each question with its own
    configuration (search, endpoints, allow-list, keys) and only signed messages: set
    ASSAY_QUEUE_KEY, the same on every worker and batch client. Every worker must see the
    same run store (ASSAY_HOME of the batch)."""
    try:
        from assay.queue.worker import serve
    except ImportError as exc:
        extra = "pip install 'assay[queue]'"
        raise BadInputError(f"assay worker needs the queue extra: {extra} ({exc})") from None
    from assay.config import load_settings

    settings = load_settings(home=home)

    def announce(line: str) -> None:
        err_console.print(plain(line), markup=False, soft_wrap=True)

    serve(broker, settings, threads=threads, heartbeat_timeout=heartbeat_timeout, announce=announce)
