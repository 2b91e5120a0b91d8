"""``assay lab``: the local web lab."""

import typer

lab_app = typer.Typer(help="Serve a corpus as websites on loopback, for tests and benchmarks.", no_args_is_help=True)
