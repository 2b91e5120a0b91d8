"""Names in a text (``reading.names``)."""

from __future__ import annotations

import pytest

from assay.reading.names import in_full, names_in, same_name


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


@pytest.mark.parametrize(
    ("text", "names"),
    [
        ("Tarnowo Bly lies near Kelly Falls in Italy.", ["Tarnowo Bly", "Kelly Falls", "Italy"]),
        ("Additionally, she sang with Ida Brannock.", ["Ida Brannock"]),
        ("Ida Brannock was born in New Tarnby on April 30, 1929.", ["Ida Brannock", "New Tarnby"]),
    ],
)
def test_a_word_in_ly_is_a_name_and_a_month_after_a_connector_ends_one(
    text: str, names: list[str]
) -> None:
    # a capitalised -ly word is an adverb only opening a text before a comma
    assert names_in(text) == names


@pytest.mark.parametrize(
    ("text", "names"),
    [
        (
            "The Halvorsen Rovers are a club based in Tarnby, Vellmark. The Rovers play in the ML.",
            ["Halvorsen Rovers", "Tarnby", "Vellmark", "Rovers", "ML"],
        ),
        ("Mara Quist founded Blue Lantern Press. Orange Creeps is its novel.",
         ["Mara Quist", "Blue Lantern Press", "Orange Creeps"]),
        # a dot that ends no sentence keeps the name whole
        ("She moved to Tarnby St. Vell in 1990 with Ada Lind Jr. and her son.",
         ["Tarnby St Vell", "Ada Lind Jr"]),
    ],
)  # fmt: skip
def test_a_name_ends_with_its_sentence(text: str, names: list[str]) -> None:
    assert names_in(text) == names


@pytest.mark.parametrize(
    ("a", "b", "same"),
    [
        (("smith",), ("alan", "smith"), True),  # a surname alone
        (("ada", "vell"), ("ada", "marie", "vell"), True),  # middle name left out
        (("osric", "le", "tarn"), ("osric", "anselm", "le", "tarn"), True),
        (("ada", "vell"), ("ada", "marie", "vell", "tarn"), True),  # a second family name
        (("ada", "tarn"), ("ada", "vell"), False),
        (("hd", "32"), ("hd", "36"), False),  # the same template, another number
        (("ada", "vell"), ("bea", "marie", "vell"), False),  # another first name
        (("ada", "vell"), ("ada", "vellmar"), False),
        (("mara", "quist-tarn"), ("mara", "quist", "tarn"), True),  # a hyphen or a space
        (("mara", "quist\u2013tarn"), ("mara", "quist"), True),  # an en dash, a name left out
        (("mara", "quist-tarn"), ("bea", "quist", "tarn"), False),
    ],
)
def test_same_name(a: tuple[str, ...], b: tuple[str, ...], same: bool) -> None:
    assert same_name(a, b) is same and same_name(b, a) is same


@pytest.mark.parametrize(
    ("long", "short", "full"),
    [
        (("robert", "alan", "vell"), ("rob", "vell"), True),  # the name he went by
        (("sir", "ada", "marie", "vell"), ("ada", "vell"), True),  # a title before it
        (("mara", "ada", "vell"), ("ada", "vell"), True),  # known by a middle name
        (("ada", "marie", "vell", "tarn"), ("ada", "m", "vell"), True),  # two family names
        (("stuart", "vell"), ("rob", "vell"), False),  # another first name
        (("robert", "alan", "tarn"), ("rob", "vell"), False),  # another family name
        (("vell",), ("rob", "vell"), False),
        (("robert", "vell", "tarn"), ("rob", "vell-tarn"), True),  # hyphenated on one side
    ],
)
def test_in_full(long: tuple[str, ...], short: tuple[str, ...], full: bool) -> None:
    assert in_full(long, short, short) is full  # on the page the short name titles
    assert not in_full(long, ("tarn", "vell"), short)  # on another's page
