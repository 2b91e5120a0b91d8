"""The model extractor: a claim must say what its sentence says, not what was asked."""

from __future__ import annotations

import asyncio
from typing import Any

from assay.claims.extract import ExtractiveExtractor, echoes_question, extract_on_topic
from assay.claims.model_extract import ModelExtractor
from assay.models.testing import ScriptedModel
from assay.reading.relevance import relevance

QUESTION = "What language was the chronicle of Osric of Tarn's abbey written in?"
PAGE = (
    "Osric of Tarn (c. 1190 – 1251) was an English scholar and abbot. "
    "He taught at the cathedral school of Vellshire."
)


def test_a_claim_that_fills_the_question_with_a_word_of_the_page_becomes_the_sentence() -> None:
    def script(request: Any) -> object:
        return {
            "claims": [
                {
                    "claim": "The language of the chronicle of Osric of Tarn's abbey was English.",
                    "sentence": 1,
                },
                {"claim": "Osric of Tarn was an English scholar and abbot.", "sentence": 1},
            ]
        }

    drafts = asyncio.run(ModelExtractor(ScriptedModel(script)).extract(QUESTION, PAGE))
    first = "Osric of Tarn (c. 1190 – 1251) was an English scholar and abbot."
    assert [d.text for d in drafts] == [
        first,
        "Osric of Tarn was an English scholar and abbot.",
    ]
    assert drafts[0].quote == first


def test_a_claim_with_one_word_its_passages_never_said_becomes_the_sentence() -> None:
    page = (
        "Ada Vell (1954 – 2013) was a Tarn photographer. "
        "She was the mother of the actress Mara Quist. "
        "She took portraits of many singers."
    )
    question = "Who is the mother of the actress Mara Quist?"

    def script(request: Any) -> object:
        return {
            "claims": [
                # one word the page never said: the relation turned round
                {"claim": "Mara Quist is the daughter of Ada Vell.", "sentence": 2},
                # every word read
                {"claim": "Ada Vell was a photographer from Tarn.", "sentence": 1},
            ]
        }

    drafts = asyncio.run(ModelExtractor(ScriptedModel(script)).extract(question, page))
    assert [d.text for d in drafts] == [
        "She was the mother of the actress Mara Quist.",
        "Ada Vell was a photographer from Tarn.",
    ]
    assert [d.quote for d in drafts] == [
        "She was the mother of the actress Mara Quist.",
        "Ada Vell (1954 – 2013) was a Tarn photographer.",
    ]


def test_one_word_of_the_question_is_a_paraphrase_not_an_echo() -> None:
    assert not echoes_question(
        "The Journal was established in 1991.",
        "The Journal was founded in 1991 by the society.",
        "When was the Journal established?",
    )
    assert echoes_question(
        "Osric Tarn and Ada Vell are both film directors.",
        "Osric Tarn is an English-American film director and producer.",
        "Are Osric Tarn and Ada Vell both film directors?",
    )


def test_a_page_off_the_topic_costs_no_model_call() -> None:
    model = ScriptedModel(
        [{"claims": [{"claim": "Osric of Tarn was an English scholar.", "sentence": 1}]}]
    )
    extractor = ModelExtractor(model)

    def on_topic(sentence: str) -> bool:
        return relevance(QUESTION, sentence).relevant

    off_topic = "Demon Dice is a board game. It was published in 1999 by a small company."
    drafts, by = asyncio.run(extract_on_topic(extractor, QUESTION, off_topic, on_topic))
    assert model.requests == [] and by == "extractive"
    assert drafts == asyncio.run(ExtractiveExtractor().extract(QUESTION, off_topic))

    drafts, by = asyncio.run(extract_on_topic(extractor, QUESTION, PAGE, on_topic))
    assert len(model.requests) == 1 and by == extractor.name
    assert [d.text for d in drafts] == ["Osric of Tarn was an English scholar."]


def test_a_title_or_query_written_as_a_claim_becomes_its_sentence() -> None:
    script = [{"claims": [{"claim": "Osric facts", "sentence": 1}]}]
    drafts = asyncio.run(ModelExtractor(ScriptedModel(script)).extract(QUESTION, PAGE))
    assert [d.text for d in drafts] == [
        "Osric of Tarn (c. 1190 – 1251) was an English scholar and abbot."
    ]


AIRPORTS = "Do Osricby Airport and Vellmouth Airport serve the same county?"
VELLMOUTH = (
    "Vellmouth Airport is a public use airport located west of Vellmouth, "
    "in Tarn County, Vellshire. It serves the central region of the shire."
)
OSRICBY = (
    "Osricby Airport is a county owned, public use airport located in "
    "Osric County, Vellshire. The airport is mostly used for general "
    "aviation. Its runway was resurfaced after a storm."
)


def test_an_answer_written_as_a_claim_becomes_its_sentence() -> None:
    sentence = VELLMOUTH.split(". ")[0] + "."
    yes = "Yes, Osricby Airport and Vellmouth Airport both serve "
    assert echoes_question(yes + "the same county.", sentence, AIRPORTS)
    # One borrowed word, but one the page never uses: Osricby is not on this page.
    assert echoes_question("Vellmouth Airport is near Osricby.", sentence, AIRPORTS, VELLMOUTH)
    assert not echoes_question(
        "Vellmouth Airport is in Tarn County.",
        sentence,
        AIRPORTS,
        VELLMOUTH,
    )
    script = [{"claims": [{"claim": yes + "Tarn County.", "sentence": 1}]}]
    drafts = asyncio.run(ModelExtractor(ScriptedModel(script)).extract(AIRPORTS, VELLMOUTH))
    assert [d.text for d in drafts] == [sentence]


def test_an_on_topic_page_the_model_drew_nothing_from_keeps_its_best_sentences() -> None:
    model = ScriptedModel([{"claims": []}])

    def on_topic(sentence: str) -> bool:
        return relevance(AIRPORTS, sentence).relevant

    drafts, by = asyncio.run(extract_on_topic(ModelExtractor(model), AIRPORTS, OSRICBY, on_topic))
    assert len(model.requests) == 1 and by == "extractive"
    assert drafts and len(drafts) <= 2
    assert drafts[0].text.startswith("Osricby Airport is a county owned")
    assert all(d.text == d.quote and on_topic(d.text) for d in drafts)
    assert all(OSRICBY[d.start : d.end] == d.quote for d in drafts)
