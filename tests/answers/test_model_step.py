"""The model's answer: it reads claims in their passages, code checks it, no rule replaces it."""

from __future__ import annotations

import asyncio
import re
from typing import Any

from assay.answers import Answer, answer_question
from assay.models.testing import ScriptedModel
from assay.reading.passages import Page, ReadingBudget
from assay.reading.tokens import estimate_tokens
from assay.store.claims import ClaimRecord, Evidence

QUIST = (
    "Mara Quist is an American printer. She founded Blue Lantern Press in 2005. "
    "She later moved to Ohio. Her shop prints twenty books a year."
)
CREEPS = (
    "Orange Creeps is a 2010 novel by Ada Lind. The novel Orange Creeps was published by "
    "Blue Lantern Press in 2010. Critics praised its dreamlike style."
)
PAGES = {"src_01": Page.of("src_01", "Mara Quist", QUIST),
         "src_02": Page.of("src_02", "Orange Creeps", CREEPS)}  # fmt: skip
QUESTION = "Who founded the publisher of the novel Orange Creeps?"


def quoted(number: int, text: str, page: str, quote: str, source: str) -> ClaimRecord:
    start = page.index(quote)
    return ClaimRecord(
        id=f"claim_{number:03d}", text=text, confidence="medium", sourceIds=[source],
        status="weak",
        evidence=[Evidence(sourceId=source, quote=quote, start=start, end=start + len(quote))],
    )  # fmt: skip


CLAIMS = [
    quoted(1, "The novel Orange Creeps was published by Blue Lantern Press in 2010.", CREEPS,
           "The novel Orange Creeps was published by Blue Lantern Press in 2010.", "src_02"),
    quoted(2, "Mara Quist founded Blue Lantern Press in 2005.", QUIST,
           "She founded Blue Lantern Press in 2005.", "src_01"),
]  # fmt: skip


def number_of(prompt: str, wanted: str) -> int:
    found = re.findall(r"^\[(\d+)\] (.*)$", prompt, re.M)
    return next(int(n) for n, text in found if wanted in text)


def ask(question: str, claims: list[ClaimRecord], model: ScriptedModel, **options: Any) -> Answer:
    return asyncio.run(answer_question(question, claims, model=model, pages=PAGES, **options))


def test_the_model_reads_each_claim_in_its_passage_and_a_wrong_answer_is_retried() -> None:
    def script(request: Any) -> object:
        prompt = request.messages[0].content
        cited = number_of(prompt, "Mara Quist founded")
        if len(request.messages) == 1:
            return {"answer": "Ada Quist", "claims": [cited]}  # "Ada" is not in claim 2's page
        return {"answer": "Mara Quist", "claims": [cited]}

    model = ScriptedModel(script)
    found = ask(QUESTION, CLAIMS, model)
    prompt = model.requests[0].messages[0].content
    assert "PAGE: Mara Quist" in prompt and "PAGE: Orange Creeps" in prompt
    # the claim is shown as it stands alone, in place of its sentence, with its neighbours
    assert "] Mara Quist founded Blue Lantern Press in 2005." in prompt
    assert "\nMara Quist is an American printer.\n" in prompt
    assert "She founded Blue Lantern Press" not in prompt
    feedback = model.requests[1].messages[-1].content
    assert "do not contain: ada; answer from their words" in feedback
    assert found.text == "Mara Quist" and found.claim_ids == ("claim_002",)
    assert found.method == "model:scripted:model" and not found.reason


def test_an_answer_its_cited_claims_passage_states_is_grounded() -> None:
    def script(request: Any) -> object:
        cited = number_of(request.messages[0].content, "Mara Quist founded")
        return {"answer": "Ohio", "claims": [cited]}

    model = ScriptedModel(script)
    found = ask("Where did the founder of Blue Lantern Press move to later?", CLAIMS, model)
    assert found.text == "Ohio" and len(model.requests) == 1  # "She later moved to Ohio."


def test_no_reply_passing_the_check_is_no_answer_with_the_reason() -> None:
    model = ScriptedModel([{"answer": "Ada Lind", "claims": [1]}] * 3)
    found = ask("Who founded Blue Lantern Press?", CLAIMS, model)
    assert len(model.requests) == 3  # the reply and two retries, each told why
    assert found.text == "" and "do not contain: ada, lind" in found.reason
    assert [f.rule for f in found.flags] == ["extractive:who"]
    assert found.flags[0].rule_answer == "Mara Quist" and found.flags[0].model_answer == ""


def test_the_answer_step_reads_at_most_its_budget() -> None:
    claims, pages = [], {}
    for n in range(1, 21):
        sentences = [
            f"Blue Lantern Press printed its book number {n * 10 + i} in Ohio." for i in range(12)
        ]
        text = " ".join(sentences)
        pages[f"src_{n:02d}"] = Page.of(f"src_{n:02d}", f"Press catalogue {n}", text)
        claims.append(quoted(n, sentences[4], text, sentences[4], f"src_{n:02d}"))
    model = ScriptedModel([{"answer": "", "claims": []}])
    found = asyncio.run(
        answer_question("What did Blue Lantern Press print?", claims, model=model, pages=pages)
    )
    request = model.requests[0]
    shown = estimate_tokens(request.system) + estimate_tokens(request.messages[0].content)
    assert shown <= ReadingBudget().answer + 100  # the schema the profile appends aside
    assert 1 <= len(re.findall(r"^\[\d+\] ", request.messages[0].content, re.M)) <= 10
    assert not found.found and found.reason == "the model found no answer in the claims"
