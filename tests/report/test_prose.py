"""Prose a model writes over numbered statements (report/prose.py)."""

from __future__ import annotations

from assay.report.prose import DraftProse, DraftSentence, Statement, prose_from

STATEMENTS = [
    Statement(
        "The Tarn Valley tidal plant opened in 2016.",
        ("The Tarn Valley tidal plant opened in 2016.",),
    ),
    Statement("The plant has 24 turbines.", ("The plant has 24 turbines.",)),
]


def test_a_sentence_written_twice_is_kept_once() -> None:
    again = "The Tarn Valley tidal plant opened in 2016 and has 24 turbines."
    reply = DraftProse(
        sentences=[DraftSentence(text=again, statements=[1, 2]),
                   DraftSentence(text=again.replace(" and ", "  and "), statements=[2, 1])]
    )  # fmt: skip
    prose = prose_from(reply, STATEMENTS, "model:scripted")
    assert [s.text for s in prose.sentences] == [again]
