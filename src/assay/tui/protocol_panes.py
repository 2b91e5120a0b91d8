"""Protocol views: the directions of an ``assay deep`` run and the panel of a search-synth run.

``DirectionsPane`` (deep runs) follows the run log: the search method chosen in Phase 0,
then one row per direction — its worker's phase events, its score and four checks
(``deep.direction_scored``; the retry's score replaces the first after an escalation),
``deep.escalation``, and the ``insufficient_data`` / crashed-worker warnings.

``PanelPane`` (synth runs) shows the agents with the roles their signals reveal
([PHASE1_DONE]: searcher, [PHASE2_DONE]: fact-checker, [DONE]: chief author) and their
last signal, the current phase, and the verdict matrix: for each checker → author pair,
the VERIFIED / FALSE / UNVERIFIABLE counts of report.md's "### A Fact-Check of B" table,
re-read whenever report.md is rewritten (the log carries no per-row verdicts).
"""

from __future__ import annotations

from assay.protocols.synth.matrix import parse_fact_checks
from assay.tui.deep_pane import DirectionsPane
from assay.tui.panes import BASE_PANES, RunPane
from assay.tui.synth_pane import PanelPane

__all__ = ["DEFAULT_PANES", "PROTOCOL_PANES", "DirectionsPane", "PanelPane", "parse_fact_checks"]

PROTOCOL_PANES: tuple[type[RunPane], ...] = (DirectionsPane, PanelPane)
DEFAULT_PANES: tuple[type[RunPane], ...] = (*BASE_PANES, *PROTOCOL_PANES)
