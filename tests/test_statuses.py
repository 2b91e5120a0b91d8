"""The claim statuses live below the store and the events that carry them."""

from __future__ import annotations

import ast
from pathlib import Path
from types import ModuleType

from assay import events, statuses
from assay.store import claims


def _assay_imports(module: ModuleType) -> set[str]:
    tree = ast.parse(Path(str(module.__file__)).read_text(encoding="utf-8"))
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("assay"):
            found.add(node.module or "")
        elif isinstance(node, ast.Import):
            found |= {a.name for a in node.names if a.name.startswith("assay")}
    return found


def test_the_events_take_the_statuses_from_below_the_store() -> None:
    # the store writes events: an event that imported the store ran back up the layers
    assert _assay_imports(events) == {"assay.statuses"}
    assert _assay_imports(statuses) == set()
    assert claims.ClaimRecord.model_fields["status"].annotation == statuses.ClaimStatus
