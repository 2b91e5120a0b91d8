"""``assay tui``: a keyboard-driven Textual interface over the run store (the ``tui`` extra).

follow.py   RunWatcher / RunsIndex: poll run directories, re-reading only what changed
panes.py    RunPane (the plug-in point for protocol views) and the feed, plan, claims
            and report panes
protocol_panes.py  the deep run's directions and the search-synth panel (verdict matrix)
widgets.py  the runs list, the start-a-run and help dialogs, the escalation banner
app.py      AssayApp: keys, panes as tabs, polling, starting runs, following escalations
"""

from assay.tui.app import AssayApp, StartRun
from assay.tui.panes import RunPane
from assay.tui.protocol_panes import DEFAULT_PANES

__all__ = ["DEFAULT_PANES", "AssayApp", "RunPane", "StartRun"]
