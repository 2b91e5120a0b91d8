"""Where the CLI writes: results to stdout, messages to stderr."""

from __future__ import annotations

import json
import sys
from typing import Any

from rich.console import Console

console = Console(highlight=False)
err_console = Console(stderr=True, highlight=False)


def print_json(value: Any) -> None:
    """One JSON document on stdout and nothing else (for ``--json``)."""
    sys.stdout.write(json.dumps(value, ensure_ascii=False, indent=2) + "\n")
    sys.stdout.flush()
