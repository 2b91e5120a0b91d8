"""Written summaries keep only sentences their cited quotes support."""

from __future__ import annotations

import asyncio

from assay.models.step import ModelStep
from assay.models.testing import ScriptedModel
from assay.protocols.research.prose import written_summary
from assay.report.claims_report import render_claims_report
from assay.store.claims import ClaimRecord, Evidence
from assay.store.markers import claim_markers


def claim(number: int, text: str) -> ClaimRecord:
    return ClaimRecord(
        id=f"claim_{number:03d}",
        text=text,
        confidence="high",
        sourceIds=["src_01"],
        status="weak",
        evidence=[Evidence(sourceId="src_01", quote=text, start=0, end=len(text))],
    )


CLAIMS = [
    claim(1, "The Journal of Example Studies was established in 1991 by the Example Society."),
    claim(2, "The Journal of Example Studies is published quarterly by Acme Press."),
]


def test_unsupported_sentences_are_dropped_and_kept_ones_carry_markers() -> None:
    model = ScriptedModel(
        [
            {
                "sentences": [
                    {
                        "text": "The journal was established in 1991 by the Example Society.",
                        "claims": [1],
                    },
                    {"text": "It was established in 1987 by a rival society.", "claims": [1]},
                    {"text": "Acme Press publishes the journal quarterly.", "claims": [2]},
                ]
            }
        ]
    )
    summary = asyncio.run(written_summary(ModelStep(model), "When was it established?", CLAIMS))
    assert summary is not None and summary.dropped == 1
    assert summary.lines[0].endswith("(claim_001: weak)")
    assert not any("1987" in line for line in summary.lines)
    report = render_claims_report(
        "When was it established?", CLAIMS, [], written_by="test", written=summary.lines
    )
    assert ("claim_002", "weak") in claim_markers(report.split("## Findings")[0])


def test_a_reply_citing_no_offered_claim_is_retried() -> None:
    model = ScriptedModel(
        [
            {"sentences": [{"text": "Acme Press publishes it quarterly.", "claims": [9]}]},
            {"sentences": [{"text": "Acme Press publishes it quarterly.", "claims": [2]}]},
        ]
    )
    summary = asyncio.run(written_summary(ModelStep(model), "Who publishes it?", CLAIMS))
    assert summary is not None and len(summary.lines) == 1
    assert "claims must be numbers from 1 to 2" in model.requests[1].messages[-1].content


def test_a_paragraph_given_as_one_sentence_is_checked_sentence_by_sentence() -> None:
    paragraph = (
        "The journal was established in 1991 by the Example Society. "
        "It was established in 1987 by a rival society."
    )
    model = ScriptedModel([{"sentences": [{"text": paragraph, "claims": [1]}]}])
    summary = asyncio.run(written_summary(ModelStep(model), "When was it established?", CLAIMS))
    assert summary is not None and summary.dropped == 1
    assert len(summary.lines) == 1 and "1987" not in summary.lines[0]
