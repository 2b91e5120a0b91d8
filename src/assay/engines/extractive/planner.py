"""Planning without a model: search queries and research questions from the topic alone.

A model would paraphrase the topic into good queries; without one, the topic's own words
are the best evidence of what the user wants. So the queries are the topic, its key phrase
(stop words dropped), narrower phrases taken from it, a variant that looks for criticism
and limitations (so the search does not only find agreement), and, for a date-sensitive
topic, a variant with the year. Deterministic: the same topic (and year) always gives the
same plan, which keeps runs repeatable.
"""

from __future__ import annotations

import datetime as dt
import itertools
import re

from assay.errors import BadInputError
from assay.gather.search.web_search import MAX_QUERIES, MAX_QUERY_CHARS, MIN_QUERIES
from assay.language import query_word
from assay.text import STOP_WORDS, phrase_tokens, raw_words, word_set, words

DATE_WORDS = word_set(
    "latest current currently recent recently today now nowadays newest upcoming ongoing"
)
"""Words that make a topic's answer depend on when it is asked."""
_YEAR = re.compile(r"\b(?:19|20)\d{2}\b")


def is_date_sensitive(topic: str) -> bool:
    lowered = words(topic)
    pairs = set(itertools.pairwise(lowered))
    return bool(DATE_WORDS & set(lowered)) or ("this", "year") in pairs or ("so", "far") in pairs


def key_phrase(topic: str) -> str:
    """The topic's content words in order: stop words (and date words) dropped."""
    return " ".join(_content(topic)) or " ".join(raw_words(topic))


def _content(topic: str) -> list[str]:
    return [w for w in phrase_tokens(topic) if _is_key(w)]


def _is_key(token: str) -> bool:
    lowered = token.lower().replace("’", "'")
    return (
        token[0].isalnum()
        and lowered not in STOP_WORDS
        and lowered not in DATE_WORDS
        and lowered != "year"
    )


def _chunks(topic: str) -> list[str]:
    """Maximal runs of content words, split at stop words and punctuation (noun-ish phrases)."""
    chunks: list[list[str]] = [[]]
    for token in phrase_tokens(topic):
        if _is_key(token):
            chunks[-1].append(token)
        elif chunks[-1]:
            chunks.append([])
    return [" ".join(c) for c in chunks if c]


def _narrower(topic: str, key: str) -> list[str]:
    phrases = [c for c in _chunks(topic) if " " in c]
    found = [f'"{p}"' for p in phrases if p != key]
    content = _content(topic)
    for first, second in itertools.pairwise(content):
        pair = f"{first} {second}"
        if pair != key and pair not in phrases:
            found.append(pair)
    return found


_FALLBACKS = ("evidence", "research", "statistics", "history", "debate", "review", "explained")
_LONGEST_SUFFIX = len(" limitations")


def _clip(query: str, limit: int = MAX_QUERY_CHARS) -> str:
    query = " ".join(query.split())
    if len(query) <= limit:
        return query
    return query[:limit].rsplit(" ", 1)[0]


def expand_queries(topic: str, *, year: int | None = None, count: int = 5) -> list[str]:
    """``count`` (clamped to 3–10) distinct search queries derived from ``topic``.

    Order: the topic, its key phrase, the year variant (date-sensitive topics only), then
    narrower phrases interleaved with "criticism" and "limitations" variants, then generic
    variants ("… evidence", "… statistics", …) so that even a one-word topic yields
    ``count``. ``year`` defaults to the current year.
    """
    topic = " ".join(topic.split())
    if not raw_words(topic):
        raise BadInputError("the topic is empty: give a few words to research")
    count = max(MIN_QUERIES, min(MAX_QUERIES, count))
    key = _clip(key_phrase(topic), MAX_QUERY_CHARS - _LONGEST_SUFFIX)
    candidates = [topic, key]
    if is_date_sensitive(topic) and not _YEAR.search(topic):
        candidates.append(f"{key} {year or dt.datetime.now(tz=dt.UTC).year}")
    narrower = _narrower(topic, key)
    # the widening words in the run's language (assay.language): "Kritik" for a German run
    candidates += [*narrower[:1], f"{key} {query_word('criticism')}", *narrower[1:2],
                   f"{key} {query_word('limitations')}"]  # fmt: skip
    candidates += [*narrower[2:], *(f"{key} {query_word(suffix)}" for suffix in _FALLBACKS)]
    queries: list[str] = []
    seen: set[str] = set()
    for candidate in map(_clip, candidates):
        if candidate and candidate.lower() not in seen:
            seen.add(candidate.lower())
            queries.append(candidate)
    return queries[:count]


def research_questions(topic: str) -> list[str]:
    """plan.md's questions, from the topic itself. A question comes first as asked, then
    one question per thing it names (both sides of a comparison or a yes/no question), so
    each is a search target the report ticks when a relevant claim answers it. A topic that
    is not a question gets what is known about it and how strong the evidence is (and,
    date-sensitive, when it last changed)."""
    from assay.answers.kinds import shape_of

    topic = " ".join(topic.split())
    if not raw_words(topic):
        raise BadInputError("the topic is empty: give a few words to research")
    asked = words(topic)[0] in _QUESTION_WORDS or topic.endswith("?")
    if asked:
        shape = shape_of(topic)
        named = shape.options if shape.kind in ("yesno", "choice") else ()
        questions = [topic.rstrip("?.! ") + "?", *(f"What is {name}?" for name in named[:2])]
        if is_date_sensitive(topic):
            questions.append(f"When did the most recent changes in {key_phrase(topic)} happen?")
        return questions
    subject = _as_subject(topic)
    questions = [
        f"What is known about {subject}?",
        f"How strong is the evidence on {subject}, and why do sources disagree?",
    ]
    if is_date_sensitive(topic):
        questions.append(f"When did the most recent changes in {subject} happen?")
    return questions


_QUESTION_WORDS = word_set(
    "what who whom whose when where why how which is are was were do does did can could "
    "should would will has have"
)


def _as_subject(topic: str) -> str:
    """The topic as the object of a question: trailing punctuation dropped, and the first
    letter lower-cased unless the first word looks like a name or acronym."""
    topic = topic.rstrip(".!?;: ")
    first = topic.split(" ", 1)[0]
    if len(first) > 1 and first[1:].islower() and first.lower() in STOP_WORDS:
        return topic[0].lower() + topic[1:]
    return topic
