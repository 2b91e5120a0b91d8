"""Which of assay's languages a text (a question) is written in: by script, then by words.

Deterministic and data-free like ``assay.text``: kana means Japanese, other CJK
characters Chinese; Latin text is scored by its words that are one language's function
words and no English words (English's are ``text.STOP_WORDS``), plus one for any letter
only that language uses (ß, ñ, ¿, ç…: a name with an umlaut is no German question); a
language other than English needs two such signs. A text
with no clear winner is None (the caller's default,
English): a question of names alone ("Halvorsen Lighthouse") says nothing about its
language.
"""

from __future__ import annotations

import functools
import re

from assay.language import ENGLISH, codes, language
from assay.text import STOP_WORDS, words

_KANA = re.compile(r"[\u3040-\u30ff]")
_HAN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
_HANGUL = re.compile(r"[\uac00-\ud7af]")
_LETTERS = {"de": "äöüß", "es": "ñ¿¡", "fr": "çœèêëàâîïôûù"}
_ENGLISH_WORDS = STOP_WORDS - {"s", "t", "a", "i", "die"}  # "a" is also Spanish, "die" German
_ENGLISH_HOMOGRAPHS = frozenset({"man", "war", "hat", "son", "sale", "plus", "bald", "fast"})
_MARGIN = 1.5  # the winner's score against the runner-up's
_LEAST = 2.0  # what another language needs to win (one "de" in a name is no Spanish)


def detect_language(text: str) -> str | None:
    """The code of the language ``text`` is in, or None when it does not say clearly."""
    if _KANA.search(text):
        return "ja"
    if _HAN.search(text):
        return "zh"
    if _HANGUL.search(text):
        return None  # a language assay has no table for
    tokens = words(text)
    if not tokens:
        return None
    scores = {code: _score(code, tokens, text.casefold()) for code in codes()}
    ranked = sorted(scores.items(), key=lambda item: item[1], reverse=True)
    (best, top), (_, second) = ranked[0], ranked[1]
    if top < (1 if best == ENGLISH else _LEAST) or top < second * _MARGIN:
        return None
    return best


def _score(code: str, tokens: list[str], folded: str) -> float:
    found = float(sum(token in _vocabulary(code) for token in tokens))
    return found + float(any(letter in folded for letter in _LETTERS.get(code, "")))


@functools.cache
def _vocabulary(code: str) -> frozenset[str]:
    """The words that speak for ``code``: another language's function words that are no
    English words ("an", "in", "man", "war" say nothing against English)."""
    if code == ENGLISH:
        return _ENGLISH_WORDS
    return language(code).stop_words - STOP_WORDS - _ENGLISH_HOMOGRAPHS
