"""A topic's key words: its content words in order, stop words and date words dropped.

The planner's queries, the question readers (asking.py, subquestions.py), research's hops
and deep's angles and escalation all shorten a topic the same way.
"""

from __future__ import annotations

from assay.text import STOP_WORDS, phrase_tokens, raw_words, word_set

DATE_WORDS = word_set(
    "latest current currently recent recently today now nowadays newest upcoming ongoing"
)
"""Words that make a topic's answer depend on when it is asked."""


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
