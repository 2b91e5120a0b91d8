"""Planning by sub-questions: 3–10 distinct queries a person would type, the year for
date-sensitive topics."""

from __future__ import annotations

import pytest

from assay.engines.extractive import expand_queries, research_questions
from assay.errors import BadInputError
from assay.gather.search.web_search import MAX_QUERY_CHARS

TOPICS = [
    "effects of microplastics on human health",
    "What are the latest advances in solid-state batteries?",
    "climate",
    "Is coffee good for you",
    "The U.S. inflation rate in 2022",
    "current state of fusion energy research this year",
]


@pytest.mark.parametrize("topic", TOPICS)
@pytest.mark.parametrize("count", [1, 3, 5, 10, 50])
def test_three_to_ten_distinct_queries(topic: str, count: int) -> None:
    queries = expand_queries(topic, year=2026, count=count)
    assert 3 <= len(queries) <= max(3, min(10, count))
    assert len({q.lower() for q in queries}) == len(queries)
    assert all(q and len(q) <= MAX_QUERY_CHARS for q in queries)
    assert queries[0] == topic


def test_queries_are_look_ups_not_suffixed_or_quoted_fragments() -> None:
    """Issue 25: ``"founded first"`` (a quoted fragment) and ``… criticism`` (a fixed
    suffix) are not what a person types; each side of a comparison is."""
    question = "Which opened first, the Tarn Valley tidal plant or the Halvorsen Lighthouse?"
    for topic in [*TOPICS, question]:
        for query in expand_queries(topic, year=2026, count=10):
            assert '"' not in query, query
            assert not query.endswith((" criticism", " limitations")), query
    queries = expand_queries(question, count=3)
    assert queries[0] == question
    assert [q.split()[-1] for q in queries[1:]] == ["opened", "opened"]
    assert {"Tarn Valley tidal plant opened", "Halvorsen Lighthouse opened"} <= set(queries)


@pytest.mark.parametrize(
    "topic",
    [
        "latest advances in solid-state batteries",
        "current inflation in Japan",
        "recent research on long covid",
        "who leads the polls today",
        "EU AI regulation this year",
    ],
)
def test_date_sensitive_topics_get_the_year(topic: str) -> None:
    queries = expand_queries(topic, year=2031)
    dated = [q for q in queries if q.endswith(" 2031")]
    assert len(dated) == 1
    assert "latest" not in dated[0] and "current" not in dated[0]


@pytest.mark.parametrize(
    "topic", ["history of the printing press", "U.S. inflation in 2022", "latest iPhone 2024"]
)
def test_other_topics_get_no_year(topic: str) -> None:
    assert not any(q.endswith(" 2031") for q in expand_queries(topic, year=2031, count=10))


def test_the_current_year_is_the_default() -> None:
    queries = expand_queries("latest battery research")
    assert any(q.split()[-1].isdigit() and len(q.split()[-1]) == 4 for q in queries)


def test_long_topics_are_clipped() -> None:
    topic = " ".join(f"word{i}" for i in range(200))
    queries = expand_queries(topic, count=5)
    assert all(len(q) <= MAX_QUERY_CHARS for q in queries)
    assert 3 <= len(queries) <= 5


@pytest.mark.parametrize("topic", ["", "   ", "?!"])
def test_empty_topic_is_a_user_error(topic: str) -> None:
    with pytest.raises(BadInputError):
        expand_queries(topic)
    with pytest.raises(BadInputError):
        research_questions(topic)


@pytest.mark.parametrize("topic", TOPICS)
def test_one_to_four_plain_questions(topic: str) -> None:
    questions = research_questions(topic)
    assert 1 <= len(questions) <= 4
    assert all(q.endswith("?") for q in questions)
    assert len(set(questions)) == len(questions)


def test_questions_keep_a_question_topic_and_add_when_for_recent_topics() -> None:
    questions = research_questions("What are the latest advances in solid-state batteries?")
    assert questions[0] == "What are the latest advances in solid-state batteries?"
    assert len(questions) == 2
    assert questions[-1].startswith("When")
    assert research_questions("effects of microplastics on human health")[0] == (
        "What is known about effects of microplastics on human health?"
    )


def test_a_comparison_plans_one_question_per_side_and_no_fixed_angles() -> None:
    questions = research_questions("Are Vellwort and Tarnbloom both plant genera?")
    assert questions == [
        "Are Vellwort and Tarnbloom both plant genera?",
        "What is Vellwort?",
        "What is Tarnbloom?",
    ]
    factoid = research_questions("Who directed the film The Prestige?")
    assert factoid == ["Who directed the film The Prestige?"]
    dated = research_questions("Which opened first, the Tarn Valley tidal plant or Kessler?")
    assert dated[1:] == ["When was Tarn Valley tidal plant opened?", "When was Kessler opened?"]
