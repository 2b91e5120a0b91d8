"""The language a run searches and writes in (``--language``), and what depends on it.

A run's language is the one ``--language`` names, else the one its question is written in
(``detect.detect_language``), else English. While the run goes (``protocols.runner``
enters ``using_language``):

- that language's function words are stop words (``text.using_stop_words``), so word
  overlap, grounding and relevance compare what a German sentence says, not its articles;
- the report's fixed text (headings, the answer line, the source list) is in it
  (``report_text``), and the words a search query is widened with (``query_word``);
- every model call is told to write for the reader in it, and to keep each quote, and
  each claim that restates one, in its page's language (``writing_instruction``), so the
  verification still compares a claim with the words of its page.

Pages are read and quoted verbatim in whatever language they are in. Honestly: the
embedded models (the all-MiniLM-L6-v2 sentence embeddings behind relevance, the hybrid
index and the fitted judge) were trained on English text. On other languages their
scores carry less meaning (``ENGLISH_ONLY``, said once a run as a warning): word overlap,
names and numbers carry more of each decision, and a page in a language the question is
not written in is found only when it shares the question's words (a name, a number).
"""

from __future__ import annotations

import tomllib
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from functools import cache
from importlib import resources
from types import MappingProxyType
from typing import Any

from assay.text import using_stop_words, word_set

ENGLISH = "en"
ENGLISH_ONLY = (
    "the embedded models (all-MiniLM-L6-v2 embeddings for relevance and the index, the "
    "fitted judge) were trained on English: on {name} text their scores mean less, so word "
    "overlap, names and numbers carry more of each decision"
)


@dataclass(frozen=True)
class Language:
    """One language's table (``data/languages.toml``)."""

    code: str
    name: str
    native: str
    stop_words: frozenset[str]
    query_words: MappingProxyType[str, str]
    report: MappingProxyType[str, str]


@cache
def _tables() -> dict[str, Language]:
    text = resources.files("assay.language").joinpath("data/languages.toml").read_text("utf-8")
    raw: dict[str, Any] = tomllib.loads(text)
    return {
        code: Language(
            code=code,
            name=str(entry["name"]),
            native=str(entry["native"]),
            stop_words=word_set(str(entry.get("stop_words", ""))),
            query_words=MappingProxyType(dict(entry["query_words"])),
            report=MappingProxyType(dict(entry["report"])),
        )
        for code, entry in raw.items()
    }


def codes() -> list[str]:
    """Every language assay writes in, English first."""
    return [ENGLISH, *sorted(c for c in _tables() if c != ENGLISH)]


def language(code: str) -> Language:
    return _tables()[code]


def parse_language(value: str) -> str:
    """A language as given (``de``, ``de-AT``, ``German``, ``Deutsch``) as its code; a
    language assay has no table for is a ValueError naming the ones it has."""
    given = value.strip().casefold()
    base = given.replace("_", "-").split("-", 1)[0]
    for found in _tables().values():
        if base == found.code or given in (found.name.casefold(), found.native.casefold()):
            return found.code
    known = ", ".join(f"{c} ({language(c).name})" for c in codes())
    raise ValueError(f"no language {value.strip()!r}: assay writes in {known}")


def run_language(asked: str | None, question: str) -> str:
    """The run's language: the one asked for, else the question's, else English."""
    from assay.language.detect import detect_language

    return asked or detect_language(question) or ENGLISH


_current: ContextVar[str] = ContextVar("assay_language", default=ENGLISH)


@contextmanager
def using_language(code: str) -> Iterator[None]:
    """Run the block in ``code``'s language (stop words, report text, model instruction)."""
    token = _current.set(code)
    try:
        with using_stop_words(language(code).stop_words):
            yield
    finally:
        _current.reset(token)


def current_language() -> Language:
    return language(_current.get())


def report_text(key: str, **values: object) -> str:
    """The report's fixed text ``key`` in the current language, ``values`` filled in."""
    text = current_language().report.get(key) or language(ENGLISH).report[key]
    return text.format(**values) if values else text


def report_texts(key: str) -> list[str]:
    """``key``'s text in every language (what reads a report back must know them all)."""
    return list(dict.fromkeys(t.report[key] for t in _tables().values() if key in t.report))


def query_word(english: str) -> str:
    """``english`` (a word a search query is widened with) in the current language."""
    return current_language().query_words.get(english, english)


def writing_instruction() -> str:
    """What every model call is told about the run's language ("" in English)."""
    found = current_language()
    if found.code == ENGLISH:
        return ""
    return (
        f"Language: the user reads {found.name} ({found.native}). Write every text meant "
        f"for the reader (answers, summaries, findings, explanations, headings, search "
        f"queries) in {found.name}. Never translate a quote: copy it exactly as the page "
        "has it, and keep each claim that restates a page in that page's own language, so "
        "it can be checked against the page's words. Keep JSON keys and listed values as "
        "specified."
    )
