"""``assay index``: the local full-text index."""

import typer

index_app = typer.Typer(help="Build and search the local full-text index.", no_args_is_help=True)
