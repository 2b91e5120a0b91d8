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
