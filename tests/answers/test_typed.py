"""Answers of a named kind ("What is X's occupation?"), without a model."""

from __future__ import annotations

import pytest

from assay.answers.ranking import Ranked
from assay.answers.typed import typed_span
from assay.reading.questions import shape_of
from assay.store.claims import ClaimRecord


def _ranked(*texts: str) -> list[Ranked]:
    claims = [
        ClaimRecord.model_construct(id=f"c{n}", text=t, evidence=[], status="weak")
        for n, t in enumerate(texts)
    ]
    return [Ranked(c, 1.0 - n / 10, (c.id,)) for n, c in enumerate(claims)]


@pytest.mark.parametrize(
    ("question", "attribute"),
    [
        ("What is Marta Kowalczyk's occupation?", "occupation"),
        ("What was the genre of The Lanterns?", "genre"),
        ("In what city was Marta Kowalczyk born?", "city"),
        ("Which country is Lake Orvan in?", "country"),
        ("Who founded the Orvan Trust?", ""),
        ("When was the Orvan Trust founded?", ""),
    ],
)
def test_the_question_names_the_kind_it_asks_for(question: str, attribute: str) -> None:
    assert shape_of(question).attribute == attribute


@pytest.mark.parametrize(
    ("question", "claims", "answer"),
    [
        (
            "What is Marta Kowalczyk's occupation?",
            ["Marta Kowalczyk (born 3 May 1971) is a Polish sculptor and painter."],
            "sculptor",
        ),
        (
            "What was Jan Wrona's occupation?",
            ["Jan Wrona (1801–1870) was a Polish surgeon, photographer and carpenter."],
            "surgeon",
        ),
        (
            "In what city was Jan Wrona born?",
            ["Jan Wrona (born 1801) was a Polish surgeon.", "Wrona was born in Łęczyca."],
            "Łęczyca",
        ),
        (
            "What is the nationality of Marta Kowalczyk?",
            ["Marta Kowalczyk (born 3 May 1971) is a Polish sculptor and painter."],
            "Polish",
        ),
        (
            "In what city was Tomasz Wrona born?",
            ["Tomasz Wrona was born in Wrocław, Poland, and trained as a chemist."],
            "Wrocław",
        ),
        (
            "What is Tomasz Wrona's occupation?",
            [
                "Tomasz Wrona was born in Wrocław, Poland.",  # nothing of the kind here
                "Wrona worked as a chemist for twenty years.",
            ],
            "chemist",
        ),
    ],
)
def test_the_answer_is_the_span_of_the_asked_kind(
    question: str, claims: list[str], answer: str
) -> None:
    span = typed_span(question, shape_of(question), _ranked(*claims))
    assert span is not None and span.text == answer


@pytest.mark.parametrize(
    "claims",
    [
        ["Kraków is the second-largest city in Poland.", "Born in Gniezno, he trained in Kraków."],
        ["Tomasz Wrona (born 5 April 1958, Gniezno) is a Polish chemist."],
    ],
)
def test_a_place_named_right_after_what_is_asked_is_the_answer(claims: list[str]) -> None:
    # a little-known town's name alone does not embed as a city; the sentence says it is
    question = "In what city was Tomasz Wrona born?"
    span = typed_span(question, shape_of(question), _ranked(*claims))
    assert span is not None and span.text == "Gniezno"


def test_a_nationality_after_the_cue_is_no_birthplace() -> None:
    question = "In what city was Tomasz Wrona born?"
    claims = ["Tomasz Wrona (born 5 April 1958) is an American chemist."]
    span = typed_span(question, shape_of(question), _ranked(*claims))
    assert span is None or span.text != "American"


def test_no_span_of_the_kind_is_no_answer() -> None:
    question = "What is Tomasz Wrona's occupation?"
    assert typed_span(question, shape_of(question), _ranked("Wrona lived in Gdańsk.")) is None


@pytest.mark.parametrize(
    ("claim", "answer"),
    [
        ("Ida Brannock (1570 in Gniezno – 1637 in Kraków) was a Tarnish painter.", "Gniezno"),
        ("Ida Brannock (2 May 1886, Gniezno – 6 June 1968 Kraków) was a journalist.", "Gniezno"),
        ("Ida Brannock (born Ida Wrona Brannock; 1890 – 1952) was a writer. ", None),
    ],
)
def test_a_life_span_gives_the_birthplace_first_and_a_birth_name_is_no_place(
    claim: str, answer: str | None
) -> None:
    question = "In what city was Ida Brannock born?"
    span = typed_span(question, shape_of(question), _ranked(claim))
    assert (span.text if span else None) == answer


def test_neither_the_subject_s_own_name_nor_an_adverb_is_its_occupation() -> None:
    question = "What is Ida Brannock's occupation?"
    claims = [
        "Ida Mary Wren (1901–1970), known professionally as Ida Brannock, was a Tarnish actress."
    ]
    span = typed_span(question, shape_of(question), _ranked(*claims))
    assert span is not None and span.text == "actress"
