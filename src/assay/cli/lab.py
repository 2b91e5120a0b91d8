"""``assay lab``: the local web lab, in the foreground until Ctrl-C."""

from __future__ import annotations

import signal
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Annotated
from urllib.parse import urlsplit

import typer

from assay.cli.help import AssayGroup

if TYPE_CHECKING:
    from assay.lab import Lab

lab_app = typer.Typer(
    cls=AssayGroup,
    help="Serve a corpus as websites on loopback, for tests and benchmarks.",
    no_args_is_help=True,
)

CorpusArg = Annotated[
    Path,
    typer.Argument(
        help="A folder of html/md/txt files, a JSON/JSONL file of {title, text, url?} records "
        "or a title → text mapping, or an index.sqlite.",
        show_default=False,
    ),
]
SitesOpt = Annotated[
    int, typer.Option("--sites", min=1, help="How many websites to serve (at most 200).")
]
PortOpt = Annotated[
    int, typer.Option("--port", min=0, max=65535, help="Port for every site (0: any free one).")
]
NoFaultsOpt = Annotated[
    bool, typer.Option("--no-faults", help="Serve pages only: no /fault/, /private/, /inject/.")
]
AddressOpt = Annotated[
    str | None,
    typer.Option(
        "--address",
        help="Loopback address of site 1 (default 127.0.0.2); site k gets the next ones.",
        show_default=False,
    ),
]


def _wait(lab: Lab) -> None:
    """Block until Ctrl-C (tests replace this)."""
    threading.Event().wait()


def _interrupt(signum: int, frame: object) -> None:
    """SIGTERM stops the lab as cleanly as Ctrl-C does."""
    raise KeyboardInterrupt


@lab_app.command("serve")
def serve(
    corpus: CorpusArg,
    sites: SitesOpt = 3,
    port: PortOpt = 0,
    no_faults: NoFaultsOpt = False,
    address: AddressOpt = None,
) -> None:
    """Serve CORPUS as websites on loopback addresses, with a SearxNG-style /search."""
    from assay.lab.server import FIRST_ADDRESS, serve_lab

    first_address = address or FIRST_ADDRESS
    on_main = threading.current_thread() is threading.main_thread()
    previous = signal.signal(signal.SIGTERM, _interrupt) if on_main else None
    try:
        with serve_lab(
            corpus,
            sites=sites,
            faults=not no_faults,
            port=port,
            first_address=first_address,
        ) as lab:
            for number, (site, pages) in enumerate(zip(lab.sites, lab.site_pages, strict=True), 1):
                typer.echo(f"lab: site {number} {site} ({len(pages)} pages)")
            typer.echo(f"lab: search: {lab.search_url}")
            typer.echo(f"lab: use: {_search_flags(lab.sites[0])}")
            scholarly = " ".join(
                f"ASSAY_SCHOLARLY__{name.upper()}={url}"
                for name, url in lab.scholarly_settings().items()
            )
            typer.echo(f"lab: scholarly APIs (--search arxiv, openalex, …): {scholarly}")
            if not no_faults:
                typer.echo(f"lab: faults: {lab.sites[0]}/fault/{{slow,429,500,redirect-loop,...}}")
            typer.echo("lab: serving; press Ctrl-C to stop", err=True)
            _wait(lab)
    except KeyboardInterrupt:
        typer.echo("lab: stopped", err=True)
    finally:
        if on_main:
            signal.signal(signal.SIGTERM, previous)


def _search_flags(site: str) -> str:
    """The exact flags that point a research command at the lab's search and pages."""
    host = urlsplit(site).hostname or ""
    allow = "127.0.0.0/8" if host.startswith("127.") else host
    return f"--search searxng --searxng-url {site} --allow-host {allow}"
