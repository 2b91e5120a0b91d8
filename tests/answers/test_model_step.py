"""The model's answer: it reads claims in their passages, code checks it, no rule replaces it."""

from __future__ import annotations

import asyncio
import re
from typing import Any

import pytest

from assay.answers import Answer, answer_question
from assay.models.testing import ScriptedModel
from assay.reading.passages import Page, ReadingBudget
from assay.reading.tokens import estimate_tokens
from assay.store.claims import ClaimRecord, Evidence
from tests.answers.settling import asked, keeping

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


def test_an_answer_citing_only_the_claim_that_led_to_it_is_cited_to_the_claim_stating_it() -> None:
    def script(request: Any) -> object:
        lead = number_of(request.messages[0].content, "Orange Creeps was")
        return {"answer": "Mara Quist", "claims": [lead]}  # the first hop only

    model = ScriptedModel(keeping(script))
    found = ask(QUESTION, CLAIMS, model)
    assert len(asked(model)) == 1  # no retry: another offered claim states the answer
    assert found.text == "Mara Quist" and found.claim_ids == ("claim_001", "claim_002")


def test_an_answer_no_one_offered_claim_holds_is_not_cited_to_any() -> None:
    model = ScriptedModel(keeping([{"answer": "Orange Quist", "claims": [1]}] * 2))
    found = ask(QUESTION, CLAIMS, model)  # "Orange" is one claim's word, "Quist" the other's
    assert len(asked(model)) == 2 and found.text == ""
    assert "do not contain: " in found.reason


def test_an_answer_its_cited_claims_passage_states_is_grounded() -> None:
    def script(request: Any) -> object:
        cited = number_of(request.messages[0].content, "Mara Quist founded")
        return {"answer": "Ohio", "claims": [cited]}

    model = ScriptedModel(keeping(script))
    found = ask("Where did the founder of Blue Lantern Press move to later?", CLAIMS, model)
    assert found.text == "Ohio" and len(asked(model)) == 1  # "She later moved to Ohio."


def test_no_reply_passing_the_check_is_no_answer_with_the_reason() -> None:
    model = ScriptedModel(keeping([{"answer": "Ada Lind", "claims": [1]}] * 3))
    found = ask("Who founded Blue Lantern Press?", CLAIMS, model)
    assert len(asked(model)) == 2  # the reply and one retry, told why
    assert found.text == "" and "do not contain: ada, lind" in found.reason
    assert [f.rule for f in found.flags] == ["extractive:who"]
    assert found.flags[0].rule_answer == "Mara Quist" and found.flags[0].model_answer == ""
    assert found.flags[0].settled == ""  # shown the rule's answer, the model took neither


def test_the_answer_step_reads_at_most_its_budget() -> None:
    claims, pages = [], {}
    for n in range(1, 21):
        sentences = [
            f"Blue Lantern Press printed its book number {n * 10 + i} in Ohio." for i in range(12)
        ]
        text = " ".join(sentences)
        pages[f"src_{n:02d}"] = Page.of(f"src_{n:02d}", f"Press catalogue {n}", text)
        claims.append(quoted(n, sentences[4], text, sentences[4], f"src_{n:02d}"))
    model = ScriptedModel(keeping([{"answer": "", "claims": []}]))
    found = asyncio.run(
        answer_question("What did Blue Lantern Press print?", claims, model=model, pages=pages)
    )
    request = model.requests[0]
    shown = estimate_tokens(request.system) + estimate_tokens(request.messages[0].content)
    assert shown <= ReadingBudget().answer + 100  # the schema the profile appends aside
    assert 1 <= len(re.findall(r"^\[\d+\] ", request.messages[0].content, re.M)) <= 10
    assert not found.found and found.reason == "the model found no answer in the claims"


TARN = (
    "Tarn Monthly is an American music magazine. It was first published in 1980. "
    "Its offices are in Ohio."
)
VELL = "Vell Review is a science magazine. Vell Review was first published in 1922 in Boston."
ROOK = "Ada Rook is a guitarist. Since 2012 she has written for Tarn Monthly."
MAGAZINES = {"src_01": Page.of("src_01", "Tarn Monthly", TARN),
             "src_02": Page.of("src_02", "Vell Review", VELL),
             "src_03": Page.of("src_03", "Ada Rook", ROOK)}  # fmt: skip
DATED = [
    quoted(1, "Tarn Monthly was first published in 1980.", TARN,
           "It was first published in 1980.", "src_01"),
    quoted(2, "Vell Review was first published in 1922 in Boston.", VELL,
           "Vell Review was first published in 1922 in Boston.", "src_02"),
    quoted(3, "Ada Rook has written for Tarn Monthly since 2012.", ROOK,
           "Since 2012 she has written for Tarn Monthly.", "src_03"),
]  # fmt: skip
FIRST = "Which magazine was published first, Tarn Monthly or Vell Review?"


def cite_dates(*answers: str) -> Any:
    """A model that answers ``answers`` in turn, each citing the two dating claims."""

    def script(request: Any) -> object:
        prompt = request.messages[0].content
        cited = [number_of(prompt, "Tarn Monthly was first"), number_of(prompt, "Vell Review was")]
        return {
            "answer": answers[min(len(request.messages) // 2, len(answers) - 1)],
            "claims": cited,
        }

    return script


def ask_dated(question: str, model: ScriptedModel, claims: list[ClaimRecord] = DATED) -> Answer:
    return asyncio.run(answer_question(question, claims, model=model, pages=MAGAZINES))


def test_a_choice_its_cited_dates_contradict_is_retried_with_them_and_corrected() -> None:
    model = ScriptedModel(cite_dates("Tarn Monthly", "Vell Review"))
    found = ask_dated(FIRST, model)
    feedback = model.requests[1].messages[-1].content
    assert (
        "your cited claims date Tarn Monthly 1980 and Vell Review 1922, "
        "so 'Tarn Monthly' is not the earlier" in feedback
    )
    assert found.text == "Vell Review" and len(model.requests) == 2 and not found.flags


def test_a_model_that_insists_on_the_side_its_dates_contradict_leaves_it_unanswered() -> None:
    model = ScriptedModel(keeping(cite_dates("Tarn Monthly")))
    found = ask_dated(FIRST, model)
    assert len(asked(model)) == 2  # the reply and one retry
    assert found.text == "" and found.method == "model:scripted:model"
    assert "so 'Tarn Monthly' is not the earlier" in found.reason
    # the rule reads the dates right, and it is still only a flag: it never answers
    assert [(f.rule, f.rule_answer, f.model_answer) for f in found.flags] == [
        ("extractive:choice", "Vell Review", "")
    ]


def test_the_check_of_the_later_side_reads_the_same_dates_the_other_way() -> None:
    model = ScriptedModel(cite_dates("Vell Review", "Tarn Monthly"))
    found = ask_dated("Which magazine is newer, Tarn Monthly or Vell Review?", model)
    assert "so 'Vell Review' is not the later" in model.requests[1].messages[-1].content
    assert found.text == "Tarn Monthly"


def test_without_both_sides_dated_by_the_cited_quotes_the_choice_stands_flagged() -> None:
    def script(request: Any) -> object:
        prompt = request.messages[0].content
        # the guitarist's page dates her own writing, not the magazine
        cited = [number_of(prompt, "Ada Rook has"), number_of(prompt, "Vell Review was")]
        return {"answer": "Tarn Monthly", "claims": cited}

    model = ScriptedModel(keeping(script))
    found = ask_dated(FIRST, model, [DATED[1], DATED[2]])
    assert found.text == "Tarn Monthly" and len(asked(model)) == 1
    assert [f.rule_answer for f in found.flags] == ["Vell Review"]


def test_a_choice_citing_one_sides_date_alone_is_checked_with_the_other_sides_offered_date() -> (
    None
):
    def script(request: Any) -> object:
        prompt = request.messages[0].content
        tarn, vell = (
            number_of(prompt, "Tarn Monthly was first"),
            number_of(prompt, "Vell Review was"),
        )
        if len(request.messages) == 1:  # first reply: one side's date, and that side
            return {"answer": "Tarn Monthly", "claims": [tarn]}
        return {"answer": "Vell Review", "claims": [vell]}  # right, on its own date alone

    model = ScriptedModel(script)
    found = ask_dated(FIRST, model)
    feedback = model.requests[1].messages[-1].content
    assert (
        "the claims date Tarn Monthly 1980 and Vell Review 1922, "
        "so 'Tarn Monthly' is not the earlier" in feedback
    )
    assert found.text == "Vell Review" and len(model.requests) == 2
    # the answer rests on both dates: the one it cited and the one that completes it
    assert set(found.claim_ids) == {"claim_001", "claim_002"}


def test_a_choice_by_dates_asks_for_both_sides_years_in_the_first_prompt() -> None:
    model = ScriptedModel(cite_dates("Vell Review", "Tarn Monthly"))
    ask_dated(FIRST, model)
    first = model.requests[0].messages[0].content
    assert "Cite the claims that state the years of Tarn Monthly and of Vell Review." in first


def test_a_yes_no_citing_one_side_is_sent_back_with_the_numbers_of_the_other_sides_claims() -> None:
    question = "Were Mara Quist and Orange Creeps both in print by 2010?"

    def script(request: Any) -> object:
        prompt = request.messages[0].content
        quist = number_of(prompt, "Mara Quist founded")
        if len(request.messages) == 1:
            return {"answer": "yes", "claims": [quist]}
        return {"answer": "yes", "claims": [quist, number_of(prompt, "Orange Creeps was")]}

    model = ScriptedModel(script)
    found = ask(question, CLAIMS, model)
    retry = model.requests[1].messages[-1].content
    creeps = number_of(model.requests[0].messages[0].content, "Orange Creeps was")
    assert f"no cited claim is about Orange Creeps: claim {creeps} is about it" in retry
    assert "Mara Quist" not in retry  # the side already cited is not asked for again
    assert found.text == "yes" and set(found.claim_ids) == {"claim_001", "claim_002"}


def test_the_model_is_told_the_kind_of_thing_the_question_names() -> None:
    asked = {
        "In what city was Mara Quist born?": "The answer is the city's name.",
        "What is Mara Quist's occupation?": "The answer is a short name or phrase.",
        "Where did Mara Quist move to later?": "The answer is a place.",
        "Who founded Blue Lantern Press?": "The answer is a person's or group's name.",
    }
    for question, hint in asked.items():
        model = ScriptedModel(keeping([{"answer": "", "claims": []}]))
        ask(question, CLAIMS, model)
        assert model.requests[0].messages[0].content.endswith(f"QUESTION: {question}\n{hint}")


def test_a_number_the_claims_spell_out_is_in_them() -> None:
    rook = "Ada Rook is a guitarist. She was a two-time winner of the Tarn Prize."
    pages = {"src_01": Page.of("src_01", "Ada Rook", rook)}
    claim = quoted(1, "Ada Rook was a two-time winner of the Tarn Prize.", rook,
                   "She was a two-time winner of the Tarn Prize.", "src_01")  # fmt: skip
    question = "How many times did Ada Rook win the Tarn Prize?"
    for answer, passes in (("2", True), ("3", False)):
        model = ScriptedModel([{"answer": answer, "claims": [1]}] * 2)
        found = asyncio.run(answer_question(question, [claim], model=model, pages=pages))
        assert (found.text == answer) is passes, found.reason
        assert passes or "do not contain: 3" in found.reason


@pytest.mark.parametrize(("second", "answered"), [("Mara Quist", "Mara Quist"), ("Ohio", "")])
def test_a_model_without_a_grounded_answer_reads_again_beside_the_rules(
    second: str, answered: str
) -> None:
    """The model's answers failed the check; shown the rule's answer and the claims it rests
    on, it reads again, once: the rule's answer is then the model's, and a reply that is not
    among those proposed is not taken. The flag keeps what each said."""
    first = [{"answer": "Ada Quist", "claims": [1]}] * 2
    model = ScriptedModel(keeping(first, settled={"answer": second, "claims": [1]}))
    found = ask("Who founded Blue Lantern Press?", CLAIMS, model)
    assert len(model.requests) == 3  # the answer, its retry, one settling request
    settle = model.requests[2].messages[0].content
    assert 'A reading answers: "Mara Quist".' in settle
    assert "] Mara Quist founded Blue Lantern Press in 2005." in settle
    assert "Orange Creeps was published" not in settle  # only the claims the answers rest on
    assert found.text == answered and found.method == "model:scripted:model"
    assert [(f.rule_answer, f.model_answer, f.settled) for f in found.flags] == [
        ("Mara Quist", "", answered)
    ]
    if answered:
        assert found.claim_ids == ("claim_002",)
        assert (
            found.flags[0]
            .line()
            .endswith("no answer. Shown both, the model answered “Mara Quist”.")
        )
    else:
        assert "do not contain: ada" in found.reason  # the first answer's reason stands
