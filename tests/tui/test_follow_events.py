"""The TUI's follower reads typed events past lines this version cannot read."""

from __future__ import annotations

import json
from pathlib import Path

from assay.events import PhaseStarted
from assay.store.eventlog import LOG_FILE
from assay.tui.follow import RunWatcher


def test_the_follower_types_what_it_can_and_keeps_every_line_for_the_feed(
    tmp_path: Path,
) -> None:
    lines = [
        {"type": "phase.started", "data": {"phase": "gather"}, "seq": 0},
        {"type": "from.the.future", "data": {"anything": 1}, "seq": 1},
        {"type": "phase.started", "data": {"detail": "an older shape, no phase"}, "seq": 2},
        {"type": "phase.started", "data": {"phase": "verify"}, "seq": 3},
    ]
    (tmp_path / LOG_FILE).write_text("".join(json.dumps(x) + "\n" for x in lines))
    delta = RunWatcher(tmp_path).poll()
    assert [r["seq"] for r in delta.records] == [0, 1, 2, 3]  # the feed describes them all
    assert delta.events == [PhaseStarted(phase="gather"), PhaseStarted(phase="verify")]
