"""Planning without a model: search queries and research questions from the topic alone.

A model would paraphrase the topic into good queries; without one, the topic's own words
are the best evidence of what the user wants. So the queries are the topic as typed and
the queries of its sub-questions (subquestions.py: the look-ups a person would make, such
as each side of a comparison), and, for a date-sensitive topic, a variant with the year.
Deterministic: the same topic (and year) always gives the same plan, which keeps runs
repeatable.
"""

from __future__ import annotations

import datetime as dt
import itertools
import re

from assay.engines.extractive.keywords import DATE_WORDS, key_phrase
from assay.errors import BadInputError
from assay.gather.search.web_search import MAX_QUERIES, MAX_QUERY_CHARS, MIN_QUERIES
from assay.language import query_word
from assay.text import raw_words, words

_YEAR = re.compile(r"\b(?:19|20)\d{2}\b")


def is_date_sensitive(topic: str) -> bool:
    lowered = words(topic)
    pairs = set(itertools.pairwise(lowered))
    return bool(DATE_WORDS & set(lowered)) or ("this", "year") in pairs or ("so", "far") in pairs


_FALLBACKS = ("overview", "explained", "facts")
"""Last resort for a topic too short to give three distinct queries ("Velmar")."""


def _clip(query: str, limit: int = MAX_QUERY_CHARS) -> str:
    query = " ".join(query.split())
    if len(query) <= limit:
        return query
    return query[:limit].rsplit(" ", 1)[0]


def expand_queries(topic: str, *, year: int | None = None, count: int = 5) -> list[str]:
    """Up to ``count`` (clamped to 3–10; never fewer than 3) distinct search queries for
    ``topic``, formed from its
    sub-questions (subquestions.py): the topic as typed, each look-up's first query (both
    sides of a comparison before anything else), the year variant for a date-sensitive
    topic, then the look-ups' other queries. No fixed suffix ("… criticism") and no quoted
    fragment: each query is what a person would type for one look-up. ``year`` defaults
    to the current year.
    """
    from assay.engines.extractive.subquestions import sub_questions

    topic = " ".join(topic.split())
    if not raw_words(topic):
        raise BadInputError("the topic is empty: give a few words to research")
    count = max(MIN_QUERIES, min(MAX_QUERIES, count))
    looked_up = sub_questions(topic)
    key = _clip(key_phrase(topic))
    firsts = [q for sub in looked_up for q in sub.queries[:1] if sub.angle != "asked"]
    candidates = [topic, *firsts]
    if is_date_sensitive(topic) and not _YEAR.search(topic):
        candidates.append(f"{key} {year or dt.datetime.now(tz=dt.UTC).year}")
    candidates += [q for sub in looked_up for q in sub.queries[1:]] + [key]
    queries: list[str] = []
    seen: set[str] = set()
    short = _clip(key, MAX_QUERY_CHARS - max(map(len, _FALLBACKS)) - 1)
    # the fallback words in the run's language (assay.language): "Überblick" for German
    fallbacks = tuple(query_word(word) for word in _FALLBACKS)
    for candidate in [*map(_clip, candidates), *(f"{short} {w}" for w in fallbacks)]:
        if candidate and candidate.lower() not in seen and len(queries) < count:
            if candidate.endswith(fallbacks) and len(queries) >= MIN_QUERIES:
                break  # a fallback only makes up webSearch's three
            seen.add(candidate.lower())
            queries.append(candidate)
    return queries


def research_questions(topic: str) -> list[str]:
    """plan.md's questions: the topic's sub-questions (subquestions.py) — the question as
    asked, then one look-up per side of a comparison or the look-up a relative clause
    hides; for a topic, what is known about it and how strong the evidence is — and, for a
    date-sensitive topic, when it last changed. Each is a search target the report ticks
    when a relevant claim answers it, and a heading a reader understands."""
    from assay.engines.extractive.subquestions import sub_questions

    topic = " ".join(topic.split())
    if not raw_words(topic):
        raise BadInputError("the topic is empty: give a few words to research")
    questions = [sub.text for sub in sub_questions(topic)]
    if is_date_sensitive(topic):
        questions.append(f"When did the most recent changes in {key_phrase(topic)} happen?")
    return questions
