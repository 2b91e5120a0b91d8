"""The reading layer: relevance by meaning, and kinds of answer by meaning."""

from __future__ import annotations

import json
from importlib import resources

from assay.reading.kinds import kind_margins
from assay.reading.relevance import about_a_rival, fitted_model, relevance
from assay.text import content_words


def test_a_definition_speaks_to_an_attribute_question_it_shares_no_word_with() -> None:
    question = "What is Idris Okonkwo-Baines's occupation?"
    own = relevance(
        question,
        "Idris Okonkwo-Baines (born 1962) is a Nigerian-born British actor and director.",
        title="Idris Okonkwo-Baines",
    )
    elsewhere = relevance(
        question,
        "A hairdresser is a person whose occupation is to cut or style hair.",
        title="Hairdresser",
    )
    assert own.relevant and not elsewhere.relevant
    assert own.method == fitted_model().method == "meaning-v1"


def test_a_sentence_about_something_else_is_off_topic() -> None:
    found = relevance(
        "When was the Halden ferry line opened?",
        "The honey bee is a eusocial flying insect.",
        title="Honey bee",
    )
    assert not found.relevant and found.score < fitted_model().threshold


def test_the_fitted_weights_name_their_split_and_commit() -> None:
    data = json.loads(resources.files("assay.reading").joinpath("data/relevance.json").read_text())
    assert data["fitted_on"]["split"].startswith("tune halves")
    assert data["fitted_on"]["commit"]
    assert data["fitted_on"]["script"] == "benchmarks/fit_relevance.py"
    assert len(data["weights"]) == len(data["features"])


def test_a_possessive_is_its_noun() -> None:
    assert content_words("Okonkwo's") == content_words("Okonkwo")


def test_an_occupation_is_not_a_nationality() -> None:
    margins = kind_margins("occupation", ["sculptor", "Polish", "1971"])
    assert margins[0] > 0 > max(margins[1:])
    nationality = kind_margins("nationality", ["sculptor", "Polish"])
    assert nationality[1] > 0 > nationality[0]


def test_a_city_is_not_a_country() -> None:
    margins = kind_margins("city", ["Wrocław", "Poland"])
    assert margins[0] > 0 > margins[1]


def test_a_page_naming_the_asked_club_and_its_city_is_not_about_a_rival() -> None:
    # "Tarnby, Vellmark. The Rovers" read as one name "Vellmark The Rovers" shared "Rovers"
    # with the asked name and differed in the rest: the asked club's own page scored 0
    page = "The Halvorsen Rovers are a club based in Tarnby, Vellmark. The Rovers won in 1990."
    assert not about_a_rival("Halvorsen Rovers ML club based state", page, "Halvorsen Rovers")


def test_a_text_naming_the_asked_person_without_a_middle_name_is_not_about_a_rival() -> None:
    # "Tarnby Senator Mara Quist" shares the question's words and differs in others; the
    # text names the asked person too, with the middle name left out
    question = "Ada Marie Vell was chief of staff to which Tarnby Senator of the Vellmark Party?"
    text = "Ada Vell previously served as chief of staff to Tarnby Senator Mara Quist."
    assert not about_a_rival(question, text)
    # another Vell's sentence still is
    assert about_a_rival(question, "Tarn Vell served as chief of staff to Senator Quist.")
