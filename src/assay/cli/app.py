"""The root Typer app; each command group lives in its own module."""

from __future__ import annotations

import typer

from assay.cli.index import index_app
from assay.cli.lab import lab_app

app = typer.Typer(name="assay", no_args_is_help=True, add_completion=False)
app.add_typer(index_app, name="index")
app.add_typer(lab_app, name="lab")


def main() -> None:
    app()
