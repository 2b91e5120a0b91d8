"""Names in a text (``reading.names``)."""

from __future__ import annotations

import pytest

from assay.reading.names import names_in


@pytest.mark.parametrize(
    ("text", "names"),
    [
        ("He was born in London on 27 September 1963.", ["London"]),
        ("Apollo 11 landed in 1969.", ["Apollo 11"]),
        ("The Bank of England opened in 1694.", ["Bank of England"]),
        ("She moved to Southend on Sea in 1990.", ["Southend on Sea"]),
    ],
)
def test_names_are_whole_and_a_number_after_a_connector_starts_no_name(
    text: str, names: list[str]
) -> None:
    assert names_in(text) == names
