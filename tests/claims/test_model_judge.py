"""The model judge's prompt: one claim, the few most relevant sentences, numbered in page order."""

from __future__ import annotations

import asyncio
import re

from assay.claims.model_judge import MAX_SENTENCES, ModelJudge
from assay.models.testing import ScriptedModel

CLAIM = "The Zorbel bridge opened to traffic in 1931."
FILLER = [
    f"The harbour market sells {fruit} on Sundays."
    for fruit in [
        "apples",
        "pears",
        "plums",
        "figs",
        "dates",
        "limes",
        "kiwis",
        "melons",
        "berries",
    ]
]


def test_the_model_reads_the_relevant_sentences_in_page_order() -> None:
    evidence = " ".join(
        [FILLER[0], "Traffic first crossed the Zorbel bridge in 1931.", *FILLER[1:]]
    )
    model = ScriptedModel([{"sentence": 1, "label": "SUPPORTS"}])
    verdict = asyncio.run(ModelJudge(model).judge(CLAIM, evidence))
    prompt = model.requests[0].messages[0].content
    shown = re.findall(r"^\[(\d+)\] (.*)$", prompt, re.M)
    assert len(shown) == MAX_SENTENCES < len(FILLER) + 1
    assert ("2", "Traffic first crossed the Zorbel bridge in 1931.") in shown  # page order kept
    assert prompt.rstrip().endswith(f"CLAIM: {CLAIM}")
    assert verdict.label == "SUPPORTS" and verdict.quote == FILLER[0]


def test_a_heading_is_never_offered_as_a_sentence_that_supports() -> None:
    evidence = (
        "# Zorbel bridge (crossing)\n\n"
        "Traffic first crossed the Zorbel bridge in 1931. The harbour market sells figs.\n"
    )
    model = ScriptedModel([{"sentence": 1, "label": "SUPPORTS"}])
    verdict = asyncio.run(ModelJudge(model).judge(CLAIM, evidence))
    shown = re.findall(r"^\[(\d+)\] (.*)$", model.requests[0].messages[0].content, re.M)
    assert [text for _, text in shown] == [
        "Traffic first crossed the Zorbel bridge in 1931.",
        "The harbour market sells figs.",
    ]
    assert verdict.quote == "Traffic first crossed the Zorbel bridge in 1931."
