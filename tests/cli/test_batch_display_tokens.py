"""The batch display counts the tokens of the usage events a run writes."""

from __future__ import annotations

from pathlib import Path

from assay.cli.batch_display import BatchDisplay
from assay.events import Usage
from assay.store.eventlog import EventLog


def test_the_display_counts_tokens_from_the_written_usage_event(tmp_path: Path) -> None:
    display = BatchDisplay(1, live=False)
    heard = display.events().event[0]
    log = EventLog(tmp_path / "log.jsonl", fsync=False)
    log.listeners.append(lambda event: heard("a", event))
    log.emit(Usage(model="m", input_tokens=30, output_tokens=12))
    assert display.tokens == 42  # the line says inputTokens: a dict reader counted 0
