"""claims/sides.py: whose value a quote states, and when the cited values decide a choice."""

from __future__ import annotations

from assay.claims.sides import completing, order_problem, speaks_of
from assay.reading.passages import Page
from assay.reading.questions import shape_of
from assay.store.claims import ClaimRecord, Evidence


def on_page(number: int, quote: str) -> ClaimRecord:
    source = f"src_{number:02d}"
    return ClaimRecord(
        id=f"claim_{number:03d}", text=quote, confidence="medium", sourceIds=[source],
        status="weak", evidence=[Evidence(sourceId=source, quote=quote, start=0, end=len(quote))],
    )  # fmt: skip


def problem(question: str, answer: str, quotes: list[str], titles: list[str]) -> str:
    claims = [on_page(n, q) for n, q in enumerate(quotes, start=1)]
    pages = {f"src_{n:02d}": Page.of(f"src_{n:02d}", t, q)
             for n, (q, t) in enumerate(zip(quotes, titles, strict=True), start=1)}  # fmt: skip
    return order_problem(answer, shape_of(question), claims, pages)


TOWERS = "Which tower is taller, Osric Tower or Tarn Spire?"


def test_a_fact_speaks_of_its_pages_subject_or_the_name_it_opens_with() -> None:
    assert speaks_of("Tarn Spire", "It was built in 1931.", "Tarn Spire")
    assert speaks_of("Tarn Spire", "Tarn Spire was built in 1931.", "")
    assert not speaks_of("Tarn Spire", "Since 2012 he has painted Tarn Spire.", "Ada Rook")


def test_measures_in_one_unit_decide_and_a_wrong_side_is_told_why() -> None:
    quotes = ["Osric Tower is 1,200 metres tall.", "Tarn Spire is 300 metres tall."]
    said = problem(TOWERS, "Tarn Spire", quotes, ["Osric Tower", "Tarn Spire"])
    assert said.startswith("your cited claims give Osric Tower 1200 and Tarn Spire 300,")
    assert "so 'Tarn Spire' is not the greater" in said
    assert problem(TOWERS, "Osric Tower", quotes, ["Osric Tower", "Tarn Spire"]) == ""


def test_a_scale_word_counts_and_a_year_is_no_measure() -> None:
    question = "Which city has more inhabitants, Larkspur or Tarnby?"
    quotes = ["In 2010 Larkspur had 5 million inhabitants.", "Tarnby has 300,000 inhabitants."]
    assert "so 'Tarnby' is not the greater" in problem(
        question, "Tarnby", quotes, ["Larkspur", "Tarnby"]
    )


def test_values_that_do_not_decide_reject_nothing() -> None:
    titles = ["Osric Tower", "Tarn Spire"]
    first = "Which was founded first, Osric Tower or Tarn Spire?"
    undecided = [
        (TOWERS, ["Osric Tower is 1,200 feet tall.", "Tarn Spire is 300 metres tall."]),
        # one side dated 1900 and 2001, the other 1950
        (first, ["Osric Tower was begun in 1900, rebuilt in 2001.", "Tarn Spire began in 1950."]),
        (first, ["Osric Tower was begun in 1900.", "Tarn Spire is a tower."]),  # one side undated
        # not a choice by date or quantity
        ("Which is a church, Osric Tower or Tarn Spire?",
         ["Osric Tower was begun in 1900.", "Tarn Spire was begun in 1950."]),
    ]  # fmt: skip
    for question, quotes in undecided:
        assert problem(question, "Tarn Spire", quotes, titles) == ""
    # the same quotes in one unit decide
    assert problem(TOWERS, "Tarn Spire", ["Osric Tower is 1,200 metres tall.",
                                          "Tarn Spire is 300 metres tall."], titles)  # fmt: skip


def test_a_side_the_cited_quotes_do_not_date_is_dated_by_the_claims_offered() -> None:
    quotes = [
        "Tarn Monthly was first published in 1980.",
        "Vell Review was first published in 1922.",
    ]
    tarn, vell = on_page(1, quotes[0]), on_page(2, quotes[1])
    pages = {"src_01": Page.of("src_01", "Tarn Monthly", quotes[0]),
             "src_02": Page.of("src_02", "Vell Review", quotes[1])}  # fmt: skip
    shape = shape_of("Which was published first, Tarn Monthly or Vell Review?")
    wrong = order_problem("Tarn Monthly", shape, [tarn], pages, [tarn, vell])
    assert wrong.startswith("the claims date Tarn Monthly 1980 and Vell Review 1922, so")
    assert order_problem("Vell Review", shape, [vell], pages, [tarn, vell]) == ""
    assert completing("Vell Review", shape, [vell], pages, [tarn, vell]) == [tarn]
    assert completing("Vell Review", shape, [vell, tarn], pages, [tarn, vell]) == []
    assert order_problem("Tarn Monthly", shape, [tarn], pages, [tarn]) == ""  # nothing dates Vell
