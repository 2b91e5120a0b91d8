"""Deep research presents as [FACT] only claims that still rest on a located quote."""

from __future__ import annotations

from pathlib import Path

from assay.protocols.deep.findings import Fact, Findings
from assay.protocols.deep.synthesis import relevant_claims
from assay.store.claims import ClaimRecord, Evidence
from assay.store.runs import RunStore


def test_a_claim_its_own_page_no_longer_states_is_not_a_fact(isolated_home: Path) -> None:
    run = RunStore(isolated_home, fsync=False).create(
        "If Osric is a ferryman Vell is what?", "deep", {}
    )
    quote = "A vell is an old Tarn word for a boatman."
    stated = ClaimRecord(
        id="claim_001", text=quote, confidence="medium", sourceIds=["src_01"], status="weak",
        evidence=[Evidence(sourceId="src_01", quote=quote, start=0, end=len(quote))],
    )  # fmt: skip
    unstated = ClaimRecord(
        id="claim_002", text="Osric ferryman facts", confidence="medium", sourceIds=["src_02"],
        status="needs_review", evidence=[],
    )  # fmt: skip
    for claim in (stated, unstated):
        run.claim_ledger.append(claim)
    facts = [
        Fact(c.text, f"http://a.test/{c.id}", c.source_ids[0], c.id, "medium", "as asked")
        for c in (stated, unstated)
    ]
    found = relevant_claims(run, [Findings(1, "The question as asked", ["q"], facts=facts)])
    assert [c.id for _, c in found] == ["claim_001"]
