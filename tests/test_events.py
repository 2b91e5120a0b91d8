"""Typed events: documented, generated docs up to date, and round-trippable."""

from __future__ import annotations

from pathlib import Path

from assay.docsgen import events_markdown
from assay.events import EVENT_TYPES, ClaimCreated, ToolSearch, parse_event
from assay.store.eventlog import EventLog
from tests.paths import ROOT

DOCS = ROOT / "docs" / "events.md"


def test_docs_events_page_is_up_to_date() -> None:
    assert DOCS.read_text(encoding="utf-8") == events_markdown(), (
        "docs/events.md is stale: run `python -m assay.docsgen`"
    )


def test_every_event_type_has_a_docstring() -> None:
    required = {
        "tool.search",
        "tool.open_url",
        "claim.created",
        "claim.verified",
        "report.updated",
        "run.started",
        "run.finished",
        "phase.started",
        "phase.finished",
        "plan.written",
        "source.skipped",
        "warning",
        "error",
        "signal",
        "usage",
    }
    assert required <= set(EVENT_TYPES)
    for name, cls in EVENT_TYPES.items():
        assert cls.__doc__ and len(cls.__doc__.strip()) > 20, name


def test_log_lines_have_the_agent_loop_shape(tmp_path: Path) -> None:
    log = EventLog(tmp_path / "run.log.jsonl", fsync=False)
    first = log.emit(ToolSearch(queries=["a", "b", "c"], result_count=12))
    second = log.emit(ClaimCreated(id="claim_001", confidence="high", source_ids=["src_01"]))
    assert first["type"] == "tool.search"
    assert first["data"] == {"queries": ["a", "b", "c"], "resultCount": 12}
    assert second["data"] == {"id": "claim_001", "confidence": "high", "sourceIds": ["src_01"]}
    assert (first["seq"], second["seq"]) == (0, 1)
    assert first["ts"].endswith("Z") and "T" in first["ts"]
    # a new writer (a resumed run) continues the numbering
    third = EventLog(tmp_path / "run.log.jsonl", fsync=False).emit(
        ToolSearch(queries=["d"], result_count=0)
    )
    assert third["seq"] == 2
    assert parse_event(second) == ClaimCreated(
        id="claim_001", confidence="high", source_ids=["src_01"]
    )
    assert parse_event({"type": "from.the.future", "data": {}}) is None
