"""Grounded answers: the question's shape, span extraction, and the checked model step."""

from __future__ import annotations

import asyncio

import pytest

from assay.answers import answer_question, shape_of
from assay.claims.picker import is_fragment
from assay.claims.standalone import page_subject, stand_alone
from assay.models.testing import ScriptedModel
from assay.store.claims import ClaimRecord, Evidence
from tests.answers.settling import asked, keeping


def claim(number: int, text: str, *, status: str = "weak", **extra: object) -> ClaimRecord:
    return ClaimRecord.model_validate(
        {
            "id": f"claim_{number:03d}",
            "text": text,
            "confidence": "medium",
            "sourceIds": [f"src_{number:02d}"],
            "status": status,
            "evidence": [
                Evidence(sourceId=f"src_{number:02d}", quote=text, start=0, end=len(text))
            ],
            **extra,
        }
    )


JOURNALS = [
    claim(1, "The Journal of Example Studies is a peer-reviewed academic journal."),
    claim(2, "The Journal of Other Studies was established in 1995 by a society."),
    claim(3, "The Journal of Example Studies was established in 1991 by the Example Society."),
]


def answer(question: str, claims: list[ClaimRecord], **options: object) -> object:
    return asyncio.run(answer_question(question, claims, **options))  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("question", "kind"),
    [
        ("When was the Journal of Example Studies established?", "when"),
        ("In what year was X founded?", "when"),
        ("Are Vellwort and Tarnbloom both plant genera?", "yesno"),
        ("Which band was formed first, The Tarnings or Vell Circus?", "choice"),
        ("Who directed Orange Creeps?", "who"),
        ("How many people live in Osricby?", "number"),
        ("Where is the Example Society based?", "where"),
        ("The Example Society is based where?", "where"),
        # a "where" inside the question opens a relative clause: it asks for a number
        ("What was the population of the town where Mara Quist was born?", "what"),
        ("X has an OBE. Does Mara Quist also have one?", "yesno"),
        ("Do Tarn Nights is a remake of Harbour Lights, released in which year?", "when"),
    ],
)
def test_the_question_decides_the_shape_of_the_answer(question: str, kind: str) -> None:
    assert shape_of(question).kind == kind


def test_a_when_question_answers_with_the_year_from_the_relevant_claim() -> None:
    found = answer("When was the Journal of Example Studies established?", JOURNALS)
    assert found.text == "1991"  # type: ignore[attr-defined]
    assert found.claim_ids == ("claim_003",)  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("question", "event"),
    [
        ("The league includes the Adelaide team that was formed in what year?", "formed"),
        ("When did the Tarn Valley tidal plant open?", "open"),
        ("In what year was X founded?", "founded"),
        ("When was Who's Next by The Who?", ""),
    ],
)
def test_a_when_question_names_its_event(question: str, event: str) -> None:
    assert shape_of(question).event == event


@pytest.mark.parametrize(
    ("question", "claims", "expected"),
    [
        # the event in other words: "formed" for "established", "originated" for "developed"
        ("The Example Society was formed in what year?",
         [claim(1, "The Example Society was established in 1962 in Leeds.")], "1962"),
        ("The Vellshire Hound dog breed was developed during which century?",
         [claim(1, "The Vellshire Hound is a dog that originated in Tarn in the 19th century.")],
         "19th century"),
        # a year that dates the subject outright
        ("Salt and Ember, released in which year, is a book by Ada Vell?",
         [claim(1, "Salt and Ember is a 1998 book of Tarn cuisine by Ada Vell.")], "1998"),
        # another event's date is no answer
        ("When did the Tarn Valley tidal plant open?",
         [claim(1, "A fish ladder was added to the Tarn Valley tidal plant in 2019.")], ""),
    ],
)  # fmt: skip
def test_a_date_answers_when_its_claim_speaks_of_the_event(
    question: str, claims: list[ClaimRecord], expected: str
) -> None:
    assert answer(question, claims).text == expected  # type: ignore[attr-defined]


def test_a_yes_no_question_checks_both_sides() -> None:
    claims = [
        claim(1, "Vellwort is a genus of six species of deciduous trees in the family."),
        claim(2, "Tarnbloom is a genus of small annual plants in the daisy family."),
    ]
    both = answer("Are Vellwort and Tarnbloom both genus?", claims)
    assert both.text == "yes" and set(both.claim_ids) == {"claim_001", "claim_002"}  # type: ignore[attr-defined]
    only_one = answer("Are Vellwort and Tarnbloom both trees?", claims)
    assert only_one.text == "no"  # type: ignore[attr-defined]


def test_a_choice_is_decided_by_the_years_each_side_states() -> None:
    claims = [
        claim(1, "The Tarnings are an American rock band formed in 1997 in Osricby."),
        claim(2, "Vell Circus was an American rock band formed in 2004 by Ida Brannock."),
    ]
    found = answer("Which band was formed first, The Tarnings or Vell Circus?", claims)
    assert found.text == "Tarnings"  # type: ignore[attr-defined]
    later = answer("Which band was formed later, The Tarnings or Vell Circus?", claims)
    assert later.text == "Vell Circus"  # type: ignore[attr-defined]


def test_a_who_question_answers_with_a_name_through_a_two_claim_chain() -> None:
    claims = [
        claim(1, 'Movies such as "Orange Creeps" (1986) were shot in Osricby, Vellshire.'),
        claim(2, "Orange Creeps is a 1986 Vellshire horror film directed by Mara Quist."),
        claim(3, "Osricby is a town in Tarn County, Vellshire."),
    ]
    found = answer("Who directed the film shot in Osricby, Vellshire in 1986?", claims)
    assert found.text == "Mara Quist"  # type: ignore[attr-defined]
    assert found.claim_ids == ("claim_002", "claim_001")  # type: ignore[attr-defined]


def test_off_topic_and_unsupported_claims_never_answer() -> None:
    off_topic = {"relevance": {"score": 0.1, "method": "lexical-v2", "relevant": False}}
    claims = [
        claim(1, "The Journal of Example Studies was established in 1991.", **off_topic),
        claim(2, "The Journal of Example Studies was established in 1992.", status="needs_review"),
    ]
    found = answer("When was the Journal of Example Studies established?", claims)
    assert not found.found and found.claim_ids == ()  # type: ignore[attr-defined]


def test_nothing_answering_gives_no_answer_and_the_closest_evidence() -> None:
    found = answer("When was the Journal of Example Studies founded?", JOURNALS[:1])
    assert not found.found and found.claim_ids == ("claim_001",)  # type: ignore[attr-defined]


def test_the_model_answer_must_be_in_the_claims_it_cites() -> None:
    model = ScriptedModel(
        [
            {"answer": "1987", "claims": [1]},  # not in claim 1: rejected, told why
            {"answer": "1991", "claims": [1]},
        ]
    )
    found = answer("When was the Journal of Example Studies established?", JOURNALS, model=model)
    assert found.text == "1991" and found.claim_ids == ("claim_003",)  # type: ignore[attr-defined]
    assert found.method == "model:scripted:model"  # type: ignore[attr-defined]
    first = model.requests[0].messages[0].content
    assert first.index("[1] The Journal of Example Studies was established in 1991") < first.index(
        "[2]"
    )
    feedback = " ".join(m.content for m in model.requests[1].messages)
    assert "do not contain: 1987" in feedback


def test_a_model_answer_citing_a_claim_not_offered_is_asked_again() -> None:
    model = ScriptedModel([{"answer": "1991", "claims": [7]}, {"answer": "1991", "claims": [1]}])
    found = answer("When was the Journal of Example Studies established?", JOURNALS, model=model)
    assert found.text == "1991"  # type: ignore[attr-defined]
    assert "claims must be numbers from 1 to" in model.requests[1].messages[-1].content


def test_a_model_that_never_grounds_its_answer_gives_no_answer_not_the_rules() -> None:
    model = ScriptedModel(keeping([{"answer": "1987", "claims": [1]}] * 2))
    found = answer("When was the Journal of Example Studies established?", JOURNALS, model=model)
    assert found.text == "" and found.method == "model:scripted:model"  # type: ignore[attr-defined]
    assert "do not contain: 1987" in found.reason  # type: ignore[attr-defined]
    assert [f.rule_answer for f in found.flags] == ["1991"]  # type: ignore[attr-defined]


def test_a_model_yes_no_must_cite_both_sides() -> None:
    claims = [
        claim(1, "Vellwort is a genus of trees."),
        claim(2, "Tarnbloom is a genus of plants."),
    ]
    model = ScriptedModel([{"answer": "yes", "claims": [1]}, {"answer": "Yes", "claims": [1, 2]}])
    found = answer("Are Vellwort and Tarnbloom both genus?", claims, model=model)
    assert found.text == "Yes" and len(model.requests) == 2  # type: ignore[attr-defined]
    # asked in the first prompt already, as the check will ask it
    assert (
        "Cite claims about each of: Vellwort, Tarnbloom." in model.requests[0].messages[0].content
    )


def test_claims_name_their_subject_and_keep_their_numbers() -> None:
    subject = page_subject("Journal of Example Studies (journal)")
    assert stand_alone("It was established in 1991.", subject) == (
        "Journal of Example Studies was established in 1991."
    )
    assert stand_alone("The journal is published by Acme.", subject) == (
        "The Journal of Example Studies is published by Acme."
    )
    assert stand_alone("Its editor is Jane Doe.", subject).startswith("Journal of Example Studies'")
    # a title with a number the sentence lacks would add an unquoted number: left out
    assert stand_alone("It was won by Mika Hakkinen.", "1999 Formula One season") == (
        "It was won by Mika Hakkinen."
    )


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("Button) as the main control of the page.", True),
        ("and then the committee approved the plan.", True),
        ("The committee (founded 1990 approved the plan.", True),
        ("The committee approved the plan in 1990.", False),
    ],
)
def test_fragments_are_never_claims(text: str, fragment: bool) -> None:
    assert is_fragment(text) is fragment


def test_a_where_question_keeps_the_region_of_a_place() -> None:
    claims = [claim(1, "Blue Lantern Press is a publishing house based in Dayton, Ohio.")]
    found = answer("Where is the publishing house Blue Lantern Press based?", claims)
    assert found.text == "Dayton, Ohio"  # type: ignore[attr-defined]


def test_a_yes_no_question_is_about_the_two_things_joined_by_and() -> None:
    shape = shape_of("Are both magazines, the Tarn Monthly and Vell Review, British?")
    assert shape.options == ("Tarn Monthly", "Vell Review")
    assert shape_of("Osric Hall is in what Vellshire city?").kind == "where"


def test_a_sentence_that_names_its_subject_is_left_as_it_is() -> None:
    sentence = "The novel Orange Creeps was published in 2010."
    assert stand_alone(sentence, "Orange Creeps") == sentence


def test_a_comparative_yes_no_compares_what_each_side_states() -> None:
    claims = [
        claim(1, "The Journal of Lunar Research was established in 1956."),
        claim(2, "The Journal of Example Studies was established in 1991."),
    ]
    older = "Is the Journal of Lunar Research older than the Journal of Example Studies?"
    assert answer(older, claims).text == "yes"  # type: ignore[attr-defined]
    newer = "Is the Journal of Example Studies older than the Journal of Lunar Research?"
    assert answer(newer, claims).text == "no"  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("question", "sentence", "subject", "right"),
    [
        (
            "If Osric is a ferryman Vell is what?",
            "Vell is an old Tarn word for a boatman, related to Osric, ferryman.",
            "Vell",
            "a boatman",
        ),
        (  # the subject with its number
            "When was the kind of boat the Tarn 9 was first built?",
            "The Tarn 9 was a ferry of a kind first built in the 1890s.",
            "Tarn 9",
            "the 1890s",
        ),
        (  # only the question's own year
            "Blue Lantern, a 2016 film, is a remake of a film from what year?",
            "Blue Lantern (2016) is a remake of the 2011 film Orange Creeps.",
            "2016",
            "2011",
        ),
    ],
)
def test_a_model_answer_that_repeats_the_question_is_rejected(
    question: str, sentence: str, subject: str, right: str
) -> None:
    replies = [{"answer": subject, "claims": [1]}, {"answer": right, "claims": [1]}]
    model = ScriptedModel(keeping(replies))
    found = answer(question, [claim(1, sentence)], model=model)
    assert found.text == right and len(asked(model)) == 2  # type: ignore[attr-defined]
    assert "repeats words of the question" in model.requests[1].messages[-1].content


def test_a_number_the_question_lacks_is_an_answer_beside_the_questions_words() -> None:
    claims = [claim(1, "The Tarn 9 was a ferry of a kind first built in the 1890s.")]
    model = ScriptedModel([{"answer": "the 1890s", "claims": [1]}])
    found = answer("In what decade was the Tarn's kind first built?", claims, model=model)
    assert found.text == "the 1890s" and len(model.requests) == 1  # type: ignore[attr-defined]


def test_a_model_answer_that_is_the_whole_claim_is_rejected() -> None:
    sentence = "Vell is an old Tarn word for a boatman, related to Osric, ferryman."
    model = ScriptedModel(
        keeping([{"answer": sentence, "claims": [1]}, {"answer": "a boatman", "claims": [1]}])
    )
    found = answer("If Osric is a ferryman Vell is what?", [claim(1, sentence)], model=model)
    assert found.text == "a boatman" and len(asked(model)) == 2  # type: ignore[attr-defined]
    assert "not the claim" in model.requests[1].messages[-1].content
    # a long answer that is a list of names, not the claim, is an answer
    names = "Ada Vell, Mara Quist, Ida Brannock, and Tessa Holloway"
    scandal = claim(2, f"In 2008 photographs of Osric Tarn with actresses {names} were leaked.")
    listing = ScriptedModel([{"answer": names, "claims": [1]}])
    found = answer("Which actresses were named in the leak?", [scandal], model=listing)
    assert found.text == names  # type: ignore[attr-defined]


AIRPORTS = [
    claim(
        1,
        "Vellmouth International Airport (IATA: KVLM, ICAO: VLM) is a public use airport "
        "west of the central business district of Vellmouth, in Tarn Parish, Louisiana, "
        "United States.",
    ),
    claim(
        2,
        "Osricby International Airport (IATA: OSB, ICAO: KOSB) is a county owned, public use "
        "airport located in Osric County, New York, United States.",
    ),
    claim(3, "Larkspur Regional Airport is a public airport located in Larkspur, New York."),
]


def test_the_same_state_is_not_the_country_both_are_in() -> None:
    osricby, vellmouth = "Osricby International Airport", "Vellmouth International Airport"
    larkspur = "Larkspur Regional Airport"
    different = f"Are {osricby} and {vellmouth} in the same state?"
    assert answer(different, AIRPORTS).text == "no"  # type: ignore[attr-defined]
    same = f"Are {osricby} and {larkspur} in the same state?"
    assert answer(same, AIRPORTS).text == "yes"  # type: ignore[attr-defined]
    country = f"Are {osricby} and {vellmouth} in the same country?"
    assert answer(country, AIRPORTS).text == "yes"  # type: ignore[attr-defined]


def test_how_many_times_is_never_a_day_an_ordinal_or_a_year() -> None:
    claims = [
        claim(1, "Ida Brannock (6 July 1843 – 2 August 1915) was a Vellshire politician."),
        claim(2, "The 1939 all-star game was the 27th consecutive time the premier met there."),
        claim(3, "Ida Brannock was the Premier of Vellshire twice, from 1885 until 1887."),
    ]
    question = "How many times was the politician Ida Brannock premier?"
    assert answer(question, claims).text == "twice"  # type: ignore[attr-defined]
    assert answer(question, claims[:2]).text == ""  # type: ignore[attr-defined]


def test_a_year_the_question_gives_is_not_the_year_it_asks_for() -> None:
    claims = [
        claim(1, "Do Tarn Nights is a 2016 Vellshire film released in June 2016."),
        claim(2, "Harbour Lights, the Osricby film Do Tarn Nights remakes, was released in 2011."),
        claim(3, "Vell Road is a 2003 Vellshire film."),
    ]
    question = "Do Tarn Nights is a 2016 film, a remake of Harbour Lights, released in which year?"
    assert answer(question, claims).text == "2011"  # type: ignore[attr-defined]
    assert answer(question, [claims[0], claims[2]]).text == ""  # type: ignore[attr-defined]


def test_a_claim_that_defines_its_subject_as_asked_names_the_answer() -> None:
    claims = [
        claim(1, "Tarn & Vell starred Osric Holloway and an English actor from Leeds."),
        claim(2, "Mara Lee Quist (born 1947) is an American television and movie actor."),
    ]
    question = "Tarn & Vell starred which television and movie actor from the US?"
    assert answer(question, claims).text == "Mara Lee Quist"  # type: ignore[attr-defined]
    album = claim(
        3, "Return of the Lantern is a compilation album of rare demo tracks by Vellgrim."
    )
    band = "Which Danish heavy metal band released a compilation album of rare demo tracks?"
    # the album is defined by the question's words, but not as a band
    assert answer(band, [album]).text == "Vellgrim"  # type: ignore[attr-defined]


def test_the_name_standing_where_the_question_asks_is_the_answer() -> None:
    claims = [
        claim(1, "Osric Tarn, 3rd Earl of Vellshire, was an English nobleman and politician."),
        claim(
            2,
            "Ada Brannock, 4th Baron Brannock (1572 – 16 September 1625) was the son of "
            "Ada Brannock, 3rd Baron Brannock and Mara Tarn, daughter of Osric Tarn, "
            "3rd Earl of Vellshire and Ida Holloway.",
        ),
    ]
    question = (
        "Name the mother of Ada Brannock, 4th Baron Brannock, who was the daughter of the "
        "English nobleman and politician Osric Tarn, 3rd Earl of Vellshire?"
    )
    assert answer(question, claims).text == "Mara Tarn"  # type: ignore[attr-defined]


@pytest.mark.parametrize("second_reading", ["yes", "no"])
def test_a_model_yes_no_stands_where_a_rule_reads_its_claims_otherwise(second_reading: str) -> None:
    question = (
        "Are Osricby International Airport and Vellmouth International Airport in the same state?"
    )
    settled = {"answer": second_reading, "claims": [1, 2]}
    model = ScriptedModel(keeping([{"answer": "yes", "claims": [1, 2]}], settled=settled))
    found = answer(question, AIRPORTS[:2], model=model)
    # shown the rule's answer beside its own, the model reads again; what it says stands
    assert len(asked(model)) == 1 and len(model.requests) == 2
    assert 'differently: "no" or "yes"' in model.requests[1].messages[0].content
    assert found.text == second_reading  # type: ignore[attr-defined]
    assert found.method == "model:scripted:model"  # type: ignore[attr-defined]
    assert [(f.rule, f.rule_answer, f.model_answer, f.settled) for f in found.flags] == [  # type: ignore[attr-defined]
        ("extractive:yesno", "no", "yes", second_reading)
    ]


def test_a_common_noun_in_a_claim_does_not_name_a_side_that_capitalises_it() -> None:
    claims = [
        claim(
            1,
            "Founded in 1770 by Soren Vellgaard, Vellgaard is the largest publishing house "
            "in Denmark.",
        ),
        claim(2, "Tarn Publishing House was founded in 1869 in Osricby."),
    ]
    question = "Which was founded first, Tarn Publishing House or Vellgaard?"
    assert answer(question, claims).text == "Vellgaard"  # type: ignore[attr-defined]
