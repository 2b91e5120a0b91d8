"""reading/questions.py: the direction a choice is decided by."""

from __future__ import annotations

import pytest

from assay.reading.questions import shape_of


@pytest.mark.parametrize(
    ("question", "direction"),
    [
        ("Which was founded first, Tarn Monthly or Vell Review?", "earlier"),
        ("Which magazine was founded, Tarn Monthly or Vell Review?", "earlier"),
        # "founded" alone cues the earlier; a word for the later one wins over it
        ("Which was founded later, Tarn Monthly or Vell Review?", "later"),
        ("Which was founded more recently, Tarn Monthly or Vell Review?", "later"),
        ("Which tower is taller, Osric Tower or Tarn Spire?", "more"),
    ],
)
def test_a_choice_is_decided_by_the_direction_its_words_ask_for(
    question: str, direction: str
) -> None:
    shape = shape_of(question)
    assert shape.kind == "choice" and shape.direction == direction


@pytest.mark.parametrize(
    ("question", "options"),
    [
        # after the comma a number word starts the option's name, not the question
        (
            "Which was founded first, Two Vell Radio or Tarn Monthly?",
            ("Two Vell Radio", "Tarn Monthly"),
        ),
        ("Which is older, Three Vell Inns or Osric Hall?", ("Three Vell Inns", "Osric Hall")),
        # without a comma the question's first word is still no part of an option
        ("Is Osric Hall or Tarn Spire older?", ("Osric Hall", "Tarn Spire")),
        ("Which is older, tea or coffee?", ("tea", "coffee")),
    ],
)
def test_a_choice_keeps_each_option_whole(question: str, options: tuple[str, str]) -> None:
    assert shape_of(question).options == options
