"""Passages: what a model reads is a sentence with its neighbours and the page's title."""

from __future__ import annotations

import asyncio
import re

from assay.claims.model_extract import ModelExtractor
from assay.claims.model_judge import ModelJudge
from assay.claims.passages import claim_passage
from assay.models.profiles import ModelProfile
from assay.models.testing import ScriptedModel
from assay.reading.passages import Page, ReadingBudget, merged, within
from assay.store.claims import ClaimRecord, Evidence

PAGE = (
    "Mara Quist is an American printer. She founded Blue Lantern Press in 2005. "
    "She later moved to Ohio. Her shop prints twenty books a year."
)


def test_a_passage_is_the_sentence_and_its_neighbours_the_one_before_first() -> None:
    page = Page.of("src_01", "Mara Quist", PAGE)
    start = PAGE.index("She founded")
    passage = page.around(start, start + 10, tokens=26)
    assert passage is not None and passage.title == "Mara Quist"
    assert [s.text for s in passage.sentences] == [
        "Mara Quist is an American printer.",
        "She founded Blue Lantern Press in 2005.",
        "She later moved to Ohio.",
    ]
    assert all(PAGE[s.start : s.end] == s.text for s in passage.sentences)  # verbatim
    before = page.around(start, start + 10, tokens=19)
    assert before is not None and before.text == "Mara Quist is an American printer. " + (
        "She founded Blue Lantern Press in 2005."
    )
    alone = page.around(start, start + 10, tokens=0)
    assert alone is not None and [s.text for s in alone.sentences] == [
        "She founded Blue Lantern Press in 2005."
    ]


def test_windows_of_one_page_that_touch_are_merged_and_a_budget_keeps_the_first() -> None:
    page = Page.of("src_01", "Mara Quist", PAGE)
    first = page.around(0, 5, tokens=0)
    second = page.around(PAGE.index("She founded"), PAGE.index("She founded") + 3, tokens=0)
    last = page.around(len(PAGE) - 5, len(PAGE), tokens=0)
    assert first and second and last
    joined = merged([last, first, second])
    assert [len(p.sentences) for p in joined] == [2, 1]  # first+second touch; last stands apart
    assert within(joined, tokens=joined[0].tokens) == joined[:1]


def test_the_budget_is_sized_to_the_models_context() -> None:
    assert ReadingBudget.for_context(8_192) == ReadingBudget()
    small = ReadingBudget.for_context(4_096)
    assert small.page == ReadingBudget().page // 2 and small.answer == ReadingBudget().answer // 2


def test_a_claim_passage_is_read_around_its_quote() -> None:
    quote = "She founded Blue Lantern Press in 2005."
    start = PAGE.index(quote)
    claim = ClaimRecord(
        id="claim_001", text="Mara Quist founded Blue Lantern Press in 2005.", confidence="medium",
        sourceIds=["src_01"],
        evidence=[Evidence(sourceId="src_01", quote=quote, start=start, end=start + len(quote))],
    )  # fmt: skip
    passage = claim_passage(claim, {"src_01": Page.of("src_01", "Mara Quist", PAGE)})
    assert passage is not None and passage.text == PAGE


def test_the_model_extractor_reads_passages_under_the_page_title() -> None:
    def script(request: object) -> object:
        prompt = request.messages[-1].content  # type: ignore[attr-defined]
        number = next(n for n, t in re.findall(r"^\[(\d+)\] (.*)$", prompt, re.M) if "2005" in t)
        return {"claims": [
            {"claim": "Mara Quist founded Blue Lantern Press in 2005.", "sentence": int(number)},
            {"claim": "Ada Lind founded Blue Lantern Press in 2005.", "sentence": int(number)},
        ]}  # fmt: skip

    model = ScriptedModel(script)
    drafts = asyncio.run(
        ModelExtractor(model).extract("Who founded Blue Lantern Press?", PAGE, title="Mara Quist")
    )
    prompt = model.requests[0].messages[0].content
    # the sentence that names "she" comes with the one that answers, under the page's title
    assert prompt.startswith("PAGE: Mara Quist\nSENTENCES:")
    assert "] Mara Quist is an American printer." in prompt
    quote = "She founded Blue Lantern Press in 2005."
    assert [(d.text, d.quote) for d in drafts] == [
        ("Mara Quist founded Blue Lantern Press in 2005.", quote),  # "she" named, quote verbatim
        (quote, quote),  # "Ada Lind" is nowhere in what the model read: the sentence stands
    ]
    assert all(PAGE[d.start : d.end] == d.quote for d in drafts)


def test_a_page_read_is_sized_by_the_models_context() -> None:
    long_page = " ".join(f"Blue Lantern Press printed book number {n} in Ohio." for n in range(60))
    seen: list[int] = []
    for context in (8_192, 1_024):
        model = ScriptedModel([{"claims": []}], profile=ModelProfile(context_window=context))
        asyncio.run(ModelExtractor(model).extract("What did Blue Lantern Press print?", long_page))
        seen.append(len(re.findall(r"^\[\d+\] ", model.requests[0].messages[0].content, re.M)))
    assert seen[0] > seen[1] >= 1


def test_the_model_judge_reads_the_neighbour_that_names_the_subject() -> None:
    claim = "Mara Quist founded Blue Lantern Press in 2005."
    fillers = [f"Blue Lantern Press printed a book in Ohio in {1990 + n}." for n in range(9)]
    evidence = " ".join([*fillers, "The printer Mara Quist grew up in Dayton.",
                         "She founded Blue Lantern Press in 2005."])  # fmt: skip
    model = ScriptedModel([{"sentence": 1, "label": "NOT_ENOUGH_INFO"}])
    asyncio.run(ModelJudge(model).judge(claim, evidence))
    shown = [
        t for _, t in re.findall(r"^\[(\d+)\] (.*)$", model.requests[0].messages[0].content, re.M)
    ]
    assert shown[-2:] == ["The printer Mara Quist grew up in Dayton.", quote_of(evidence)]


def quote_of(evidence: str) -> str:
    return evidence.rsplit(". ", 1)[1]
