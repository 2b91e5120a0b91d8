"""What a question asks, read without a model: its entities, the attribute asked, its kind.

    "Who directed the film Inception?"           entities ["Inception"], asked "directed film",
                                                 kind "who"
    "Are Vellwort and Tarnbloom both plant genera?"  entities ["Vellwort", "Tarnbloom"],
                                                 asked "plant genera", kind "yes/no"
    "Halvorsen Lighthouse"                       entities ["Halvorsen Lighthouse"], asked "",
                                                 kind "topic"

Entities are runs of capitalised words (and quoted phrases); the first word of the question
counts only when it is not a question or function word. The asked words are the question's
content words outside its entities. Plans built from this are about the question's own
subjects, never a fixed list of angles. A long topic (a pasted document) is condensed: only
its first ``MAX_CHARS`` characters are read, and every query is clipped to the search
tool's limit.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from assay.engines.extractive.keywords import key_phrase
from assay.gather.search.web_search import MAX_QUERY_CHARS
from assay.text import STOP_WORDS, phrase_tokens, word_set

Kind = Literal["who", "when", "where", "how many", "which", "what", "yes/no", "how", "topic"]
MAX_CHARS = 1200
"""How much of a long topic is read to find its entities and asked words."""

_QUOTED = re.compile(r"[\"“]([^\"”]{2,80})[\"”]")
_YES_NO = word_set("is are was were do does did can could has have had will would should")
_CONNECTORS = word_set("of the de la von van der for")
_KINDS: tuple[tuple[str, Kind], ...] = (
    ("how many", "how many"), ("how much", "how many"), ("who", "who"), ("whom", "who"),
    ("whose", "who"), ("when", "when"), ("what year", "when"), ("where", "where"),
    ("which", "which"), ("what", "what"), ("how", "how"),
)  # fmt: skip
_COMPARISON = word_set(
    "both either first older younger larger smaller longer shorter earlier later more less "
    "higher lower same"
)


@dataclass(frozen=True)
class QuestionShape:
    """A question's entities, its asked words and its kind."""

    text: str
    entities: tuple[str, ...]
    asked: str
    kind: Kind

    @property
    def is_question(self) -> bool:
        return self.kind != "topic"

    @property
    def compares(self) -> bool:
        """Two or more entities and a comparing word ("both", "older", "first", …)."""
        lowered = {t.lower() for t in phrase_tokens(self.text)}
        return len(self.entities) >= 2 and bool(lowered & _COMPARISON)

    @property
    def subject(self) -> str:
        """What the research is about: the entities, or the topic's key phrase."""
        return clip(" ".join(self.entities) or key_phrase(self.text))


def clip(query: str, limit: int = MAX_QUERY_CHARS) -> str:
    query = " ".join(query.split())
    return query if len(query) <= limit else query[:limit].rsplit(" ", 1)[0]


def condense(topic: str) -> str:
    """A long topic's first ``MAX_CHARS`` characters, cut at a word boundary."""
    return clip(topic, MAX_CHARS)


def read_question(topic: str) -> QuestionShape:
    text = condense(topic)
    lowered = text.lower().lstrip("\"'“ ")
    kind: Kind = "topic"
    for prefix, named in _KINDS:
        if re.match(rf"{re.escape(prefix)}\b", lowered):
            kind = named
            break
    else:
        first = lowered.split(" ", 1)[0] if lowered else ""
        if first in _YES_NO and text.rstrip().endswith("?"):
            kind = "yes/no"
        elif text.rstrip().endswith("?"):
            kind = "what"
    entities = _entities(text)
    inside = {w.lower() for e in entities for w in phrase_tokens(e)}
    skip = {p.lower() for p, _ in _KINDS} | _YES_NO
    asked = [
        t
        for t in phrase_tokens(text)
        if t[0].isalnum() and t.lower() not in STOP_WORDS and t.lower() not in inside
        and t.lower() not in skip
    ]  # fmt: skip
    return QuestionShape(text, tuple(entities), clip(" ".join(asked), 200), kind)


def _entities(text: str) -> list[str]:
    found = [m.group(1).strip() for m in _QUOTED.finditer(text)]
    run: list[str] = []
    tokens = phrase_tokens(text)

    def close() -> None:
        while run and run[-1].lower() in _CONNECTORS:
            run.pop()
        if run:
            found.append(" ".join(run))
        run.clear()

    for position, token in enumerate(tokens):
        lowered = token.lower()
        capital = token[:1].isupper() or (token[:1].isdigit() and bool(run))
        opening = position == 0 and (lowered in STOP_WORDS or lowered in _YES_NO)
        joins = bool(run) and lowered in _CONNECTORS and position + 1 < len(tokens)
        if (capital and not opening and lowered != "i") or joins:
            run.append(token)
        else:
            close()
    close()
    unique: list[str] = []
    for entity in found:
        if not any(entity.lower() in other.lower() for other in unique):
            unique = [u for u in unique if u.lower() not in entity.lower()]
            unique.append(entity)
    return unique[:4]


STRATEGIES = ("as asked", "entity by entity", "records and corrections")
"""Distinct ways to search one question, so searchers on one panel do not repeat each other."""


def strategy_queries(topic: str, index: int, count: int = 3) -> list[str]:
    """``count`` queries for the question by strategy ``index`` (cycling through
    ``STRATEGIES``): the question as asked and its key phrase; each entity quoted with the
    asked words; or the records, corrections and disputes about the subject."""
    shape = read_question(topic)
    key = clip(key_phrase(shape.text))
    asked = shape.asked
    entities = list(shape.entities) or [key]
    strategy = STRATEGIES[index % len(STRATEGIES)]
    if strategy == "as asked":
        found = [clip(shape.text.rstrip("?")), key, clip(f"{entities[0]} {asked}".strip())]
    elif strategy == "entity by entity":
        found = [clip(f'"{e}" {asked}'.strip()) for e in entities]
        found += [clip(f'"{e}"') for e in entities]
    else:
        found = [clip(f"{shape.subject} {asked} record".strip()),
                 clip(f"{shape.subject} {asked} correction".strip()),
                 clip(f"{key} disputed")]  # fmt: skip
    rounds = index // len(STRATEGIES)
    unique = list(dict.fromkeys(q for q in found if q))
    for extra in ("facts", "history", "sources", "overview"):
        if len(unique) >= count:
            break
        unique.append(clip(f"{entities[0]} {extra}"))
    if rounds:  # a fourth searcher and beyond: the same strategy, other words
        unique = [clip(f"{q} {('facts', 'history', 'sources')[(rounds - 1) % 3]}") for q in unique]
    return unique[:count]


def bridge_entities(question: str, texts: list[str]) -> list[str]:
    """Names the texts mention that the question does not: the next hop of a multi-hop
    question ("the film shot in Tarnmouth" → "Orange Creeps"). Quoted titles first, in
    the order of ``texts`` (most relevant first); none for yes/no and comparison questions,
    whose entities are all named already."""
    shape = read_question(question)
    if shape.kind in ("yes/no", "topic") or shape.compares:
        return []
    asked = _named_words(shape.text)
    found: list[str] = []
    for text in texts:
        quoted = [m.group(1).strip() for m in _QUOTED.finditer(text)]
        for entity in [*quoted, *_entities(text)]:
            words = _named_words(entity)
            if not words or words & asked or entity in found:
                continue
            found.append(entity)
    return found


def _named_words(text: str) -> set[str]:
    return {
        t.lower() for t in phrase_tokens(text) if t[0].isalnum() and t.lower() not in STOP_WORDS
    }
