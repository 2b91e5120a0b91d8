"""Protocol views: the directions of an ``assay deep`` run and the panel of a search-synth run.

``DirectionsPane`` (deep runs) follows the run log: the search method chosen in Phase 0,
then one row per direction — its worker's phase events, its score and four checks
(``deep.direction_scored``; the retry's score replaces the first after an escalation),
``deep.escalation``, and the ``insufficient_data`` / crashed-worker warnings.

``PanelPane`` (synth runs) shows the agents with the roles their signals reveal
([PHASE1_DONE]: searcher, [PHASE2_DONE]: fact-checker, [DONE]: chief author) and their
last signal, the current phase, and the verdict matrix: for each checker → author pair,
the VERIFIED / FALSE / UNVERIFIABLE counts synth.json records (``synth.matrix``), re-read
whenever it is rewritten; report.md is read only for a run older than synth.json.
"""

from __future__ import annotations

from assay.tui.deep_pane import DirectionsPane
from assay.tui.panes import BASE_PANES, RunPane
from assay.tui.synth_pane import PanelPane

__all__ = ["DEFAULT_PANES", "PROTOCOL_PANES", "DirectionsPane", "PanelPane"]

PROTOCOL_PANES: tuple[type[RunPane], ...] = (DirectionsPane, PanelPane)
DEFAULT_PANES: tuple[type[RunPane], ...] = (*BASE_PANES, *PROTOCOL_PANES)
