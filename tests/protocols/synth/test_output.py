"""search-synth's output file: what a fact-check row tells a reader."""

from __future__ import annotations

from assay.protocols.synth.agents import Gathered, Narrative
from assay.protocols.synth.narrative import Written
from assay.protocols.synth.output import CheckRow, Synthesis, render


def test_a_check_that_found_nothing_says_the_authors_pages_were_not_counted() -> None:
    synth = Synthesis("Tarn Valley tidal plant", "today", ["Alpha", "Beta"], "CC")
    sentence = Written("The Tarn Valley tidal plant opened in 2016.", [1], claim_id="claim_001")
    synth.narratives = [Narrative("Alpha", Gathered([], [], []), [[sentence]])]
    synth.checks[("Beta", "Alpha")] = [
        CheckRow("claim_001", sentence.text, "UNVERIFIABLE", "claim_002")
    ]
    row = next(line for line in render(synth, {}).splitlines() if "UNVERIFIABLE" in line)
    # the check may not re-read the author's page, so "nothing found" would mislead
    assert "independent of the author's" in row, row
