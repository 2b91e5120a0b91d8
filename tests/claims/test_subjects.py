"""Whose subject a quote speaks of where names alone cannot tell: a numbered series'
sibling pages, and a refutation that opens with another name than the claim's."""

from __future__ import annotations

import pytest

from assay.claims import conflict
from assay.claims.subjects import numbered_siblings, of_a_sibling, opens_with_another


@pytest.mark.parametrize(
    ("first", "second", "siblings"),
    [
        ("Blue Lantern Tales (Volume 3)", "Blue Lantern Tales (Volume 4)", True),
        ("Tarn Suite in G major, TV 363b", "Tarn Suite in B minor, TV 367b", True),
        ("2012 Tarnby flood", "1896 Tarnby flood", True),
        # one title inside the other, no number of their own, or little in common
        ("Kessel", "Kessel 1936 games", False),
        ("Tarn Tales (season 1)", "List of Tarn Tales characters", False),
        ("Economy of Kessel", "Demographics of Kessel", False),
        ("Mara Quist", "Ada Lind", False),
        ("Zorbel Z 32", "Vellmark Prize 32", False),
        ("Blue Lantern Tales (Volume 3)", "Blue Lantern Tales (Volume 3)", False),
    ],
)
def test_numbered_siblings_share_most_words_and_differ_by_a_number(
    first: str, second: str, siblings: bool
) -> None:
    assert numbered_siblings(first, second) is siblings
    assert numbered_siblings(second, first) is siblings


def sibling_quote(subject: conflict.Reading, claim_page: str, quote: str, page: str) -> bool:
    return of_a_sibling(subject, claim_page, conflict.read(quote, page), quote, page)


def test_a_siblings_page_speaks_for_the_claims_subject_only_when_it_names_it() -> None:
    claim_page, sibling = "Blue Lantern Tales (Volume 4)", "Blue Lantern Tales (Volume 3)"
    subject = conflict.read("It is an album by the duo Twain.", claim_page)
    own = "Blue Lantern Tales (Volume 3) is an album by the duo Twain."
    assert sibling_quote(subject, claim_page, own, sibling)
    naming = "It was followed by Blue Lantern Tales (Volume 4) in 2006."
    assert not sibling_quote(subject, claim_page, naming, sibling)
    assert not sibling_quote(subject, claim_page, own, "Twain (duo)")


def test_numbered_parts_of_one_text_speak_of_what_their_sentences_name() -> None:
    claim = "The Zorbel bridge is 420 metres long."
    subject = conflict.read(claim, "Coastal notes 3")
    assert not sibling_quote(subject, "Coastal notes 3", claim, "Coastal notes 4")


@pytest.mark.parametrize(
    ("claim", "claim_page", "quote", "quote_page", "another"),
    [
        (  # the quote opens with the league: its values are the league's
            "The Halvorsen Rovers are a football team based in Kessel.",
            "Halvorsen Rovers",
            "The Vellmark League had a charter member named the Tarnby Rovers (who later "
            "became the Halvorsen Rovers), but the league has no team in Kessel.",
            "Tarnby Rovers",
            True,
        ),
        (  # the claim opens with no name: its subject is its page's
            "With over 3.8 million inhabitants, it is the largest city of the union.",
            "Kessel",
            "Varnau is the second-largest city after Kessel, with 1.9 million inhabitants.",
            "Varnau",
            True,
        ),
        (  # the claim's subject, by a shorter name, or as "he" on his page
            "Ada Lind was born in 1950 in Tarnby.",
            "Ada Lind",
            "Lind was born in 1952 in Varnau.",
            "Vellmark Prize",
            False,
        ),
        (
            "Ada Lind was born in 1950 in Tarnby.",
            "Ada Lind",
            "He was not born in Tarnby.",
            "Ada Lind",
            False,
        ),
        (  # a quote opening with no name leaves the subject unknown: no objection
            "Ada Lind was born in 1950 in Tarnby.",
            "Ada Lind",
            "in 1952, the records of Varnau list her birth.",
            "Varnau",
            False,
        ),
    ],
)
def test_a_refutation_opening_with_another_name_speaks_of_that_name(
    claim: str, claim_page: str, quote: str, quote_page: str, another: bool
) -> None:
    subject = conflict.read(claim, claim_page)
    assert opens_with_another(subject, conflict.read(quote, quote_page)) is another
