"""Where the CLI writes: results to stdout, messages to stderr.

Text that comes from a user, a page, a file or a run directory is never rendered as rich
markup and never reaches the terminal with control characters or a known secret in it:
it goes through ``shown`` (or ``print_error`` for the one-line error).
"""

from __future__ import annotations

import json
import sys
import traceback
from typing import Any

from rich.console import Console
from rich.markup import escape

from assay.controls import for_terminal, json_for_terminal
from assay.redact import redact, redact_credentials

console = Console(highlight=False)
err_console = Console(stderr=True, highlight=False)


def print_json(value: Any) -> None:
    """One JSON document on stdout and nothing else (for ``--json``)."""
    sys.stdout.write(json_for_terminal(json.dumps(value, ensure_ascii=False, indent=2)) + "\n")
    sys.stdout.flush()


def shown(text: object) -> str:
    """``text`` made safe to embed in markup: secrets masked, controls removed, escaped."""
    return escape(for_terminal(redact(str(text))))


def plain(text: object) -> str:
    """``text`` made safe to print with ``markup=False``: secrets masked, controls removed."""
    return for_terminal(redact(str(text)))


def print_error(message: object) -> None:
    """The one-line ``error: …`` on stderr."""
    err_console.print(f"[bold red]error:[/] {shown(message)}", highlight=False, soft_wrap=True)


def print_traceback(exc: BaseException) -> None:
    """A traceback on stderr, as ``--debug`` shows it, with every secret and credential
    masked and no control character (an exception's message may quote a page)."""
    from assay.keys import register_every_known_secret

    register_every_known_secret()
    text = "".join(traceback.format_exception(exc))
    sys.stderr.write(for_terminal(redact_credentials(text)))
    sys.stderr.flush()
