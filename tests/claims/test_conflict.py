"""Contradictions by subject and slot: the predicate the engine, deep research and synth share."""

from __future__ import annotations

import pytest

from assay.claims.conflict import conflict, different_subjects, read
from assay.protocols.deep.groups import group_facts
from assay.store.claims import ClaimRecord


def test_same_person_with_two_birth_dates_and_places_conflicts() -> None:
    found = conflict(
        "Alan Smith was born on 30 July 1970 in London.",
        "Alan Smith was born on 12 March 1975 in Toronto.",
    )
    assert found is not None and found.kind == "date"
    assert (found.left, found.right) == ("30 July 1970", "12 March 1975")


def test_a_surname_alone_names_the_same_person() -> None:
    found = conflict(
        "Alan Smith was born in London.", "Later in life, Smith said he was born in Leeds."
    )
    assert found is not None and (found.kind, found.left, found.right) == (
        "place",
        "London",
        "Leeds",
    )


@pytest.mark.parametrize(
    ("short", "full"),
    [
        (
            "Ada Vell is a British born painter.",
            "Ada Marie Vell (born 1980) is a British born painter.",
        ),
        ("Osric Le Tarn is a ferryman.", "Osric Anselm Le Tarn (1820-1881) was a ferryman."),
        ("Ada Vell is a Vellish politician.", "Ada L. Vell (born 1955) is a Vellish politician."),
        ("Ada Vell was a Vellish reporter.", "Ada Marie Vell Osric (1982-2014) was a reporter."),
        # one page writes the double family name with a hyphen, the claim with a space
        ("Mara Quist Tarn was born in Vellmark in 1982.", "Mara Quist-Tarn was born in Vellmark."),
    ],
)
def test_a_name_with_its_middle_names_left_out_names_the_same_person(short: str, full: str) -> None:
    # a page's first sentence gives the full name, a claim drawn from it the short one
    assert not different_subjects(read(short), read(full))


@pytest.mark.parametrize(
    ("claim", "quote"),
    [
        ("Ada Vell is a painter.", "Ada Vellmar is a painter."),  # another name, not a middle one
        ("Ada Vell is a painter.", "Bea Marie Vell is a painter."),  # another first name
    ],
)
def test_a_name_sharing_words_but_not_its_first_and_last_is_another_subject(
    claim: str, quote: str
) -> None:
    assert different_subjects(read(claim), read(quote))


def test_different_events_never_conflict() -> None:
    a = "15 people died in the 2012 Leap Day tornado outbreak."
    b = "484 people were killed in the May 1896 tornado outbreak."
    assert different_subjects(read(a), read(b))
    assert conflict(a, b) is None


def test_one_event_with_two_death_tolls_conflicts() -> None:
    found = conflict(
        "15 people died in the 2012 Leap Day tornado outbreak.",
        "In the 2012 Leap Day tornado outbreak, 40 people were killed.",
    )
    assert found is not None and found.kind == "number"


def test_a_pronoun_takes_its_subject_from_the_page_title() -> None:
    a, b = "It was established in 1991.", "It was established in 1950."
    assert (
        conflict(
            a, b, context_a="Journal of Applied Physics", context_b="Journal of Marine Biology"
        )
        is None
    )
    found = conflict(
        a, b, context_a="Journal of Applied Physics", context_b="Journal of Applied Physics"
    )
    assert found is not None and (found.left, found.right) == ("1991", "1950")


@pytest.mark.parametrize(
    ("a", "b"),
    [
        # same value
        (
            "The Tarn Valley tidal plant opened in 2016.",
            "The Tarn Valley tidal plant opened in 2016 after six years.",
        ),
        # same subject, different attributes
        (
            "The Tarn Valley tidal plant opened in 2016.",
            "A fish ladder was added to the Tarn Valley tidal plant in 2019.",
        ),
        # a subject only one side names
        (
            "It was replaced by a steam ferry in 1921.",
            "The Maren is due to be replaced by an electric ferry in 2028.",
        ),
        # different people, same attribute
        ("Alan Smith was born in 1970.", "Maria Lopez was born in 1975."),
    ],
)
def test_no_conflict(a: str, b: str) -> None:
    assert conflict(a, b) is None


def test_place_conflict_for_one_landmark() -> None:
    found = conflict(
        "The Eiffel Tower is located in Berlin.", "The Eiffel Tower is located in Paris, France."
    )
    assert found is not None and found.describe() == "place: Berlin versus Paris"


def _claim(number: int, text: str) -> ClaimRecord:
    return ClaimRecord(
        id=f"claim_{number:03d}", text=text, confidence="medium", sourceIds=[f"src_{number:02d}"]
    )


def test_deep_research_shows_two_birth_dates_as_one_conflict() -> None:
    groups = group_facts(
        [
            _claim(1, "Alan Smith was born on 30 July 1970 in London."),
            _claim(2, "The novelist Alan Smith was born on 12 March 1975 in Toronto, Canada."),
        ]
    )
    assert len(groups) == 1 and groups[0].conflict
    assert [c.id for c in groups[0].claims] == ["claim_001", "claim_002"]  # both sides kept


def test_deep_research_does_not_contradict_two_events() -> None:
    groups = group_facts(
        [
            _claim(1, "15 people died in the 2012 Leap Day tornado outbreak."),
            _claim(2, "484 people were killed in the May 1896 tornado outbreak."),
        ]
    )
    assert not any(g.conflict for g in groups)
