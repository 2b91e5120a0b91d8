"""The ``assay`` command line: thin commands over the Python API."""

from assay.cli.app import app, main

__all__ = ["app", "main"]
