"""The research angles of a question without a model: distinct looks at it, each with the
queries a person would type.

An angle is one of a few kinds, chosen by what the question asks:

- each **side** of a comparison or of a yes/no question about two things ("When was X
  founded?", subquestions.py), and the **comparison** as asked;
- the question **as asked**, the look-up a relative clause hides (**bridge**), and each
  **entity** it names ("What is known about X?");
- for a topic (or a "how"/"why" question): what is known about it (its **entities** as
  noun phrases: "Danish publishing houses", never "Danish" alone), its **time** (history
  and changes), its **mechanism** (how it works);
- always one on **disagreement**: where sources dispute or correct it.

No query is used by two angles (a later angle keeps only queries no earlier one has), so
the directions do not overlap, and every query is built from the question's own names and
words: a word split ("Danish history", "American figures") cannot happen, since a lone
modifier always keeps the noun it modifies.
"""

from __future__ import annotations

from dataclasses import dataclass

from assay.engines.extractive.asking import clip, read_question
from assay.engines.extractive.keywords import key_phrase
from assay.engines.extractive.subquestions import (
    SubQuestion,
    is_participle,
    noun_phrases,
    sub_questions,
)
from assay.text import raw_words

TYPES = "encyclopedias, official and scholarly sources, established news"
MIN_QUERIES = 3
MAX_QUERIES = 5


@dataclass(frozen=True)
class Angle:
    """One research angle: a short name, the sub-question it answers (its description and
    the question its facts' relevance is measured against) and its queries."""

    name: str
    description: str
    queries: tuple[str, ...]
    source_types: str
    question: str  # the sub-question its facts' relevance is measured against


def _angle(name: str, question: str, queries: list[str] | tuple[str, ...]) -> Angle:
    return Angle(clip(name, 80), question, tuple(clip(q) for q in queries), TYPES, question)


def _from(sub: SubQuestion, name: str) -> Angle:
    return _angle(name, sub.text, sub.queries)


def _topic_angles(topic: str) -> list[Angle]:
    """What is known (the entities as noun phrases), time, mechanism, for a topic."""
    subject = clip(topic.rstrip("?.! "), 200)
    key = clip(key_phrase(topic))
    phrases = noun_phrases(topic) or [key]
    plural = subject.endswith("s") and not subject.endswith("ss")
    return [
        _angle(f"What {subject} is", f"What is known about {subject}?",
               [topic.rstrip("?"), *phrases, key]),
        _angle("Over time", f"How {'have' if plural else 'has'} {subject} changed over time?",
               [f"{p} history" for p in phrases] + [f"{key} timeline"]),
        _angle("How it works", f"How {'do' if plural else 'does'} {subject} work?",
               [f"how {'do' if plural else 'does'} {key} work", f"{key} explained",
                *(f"how {p} {'work' if plural else 'works'}" for p in phrases[:1])]),
    ]  # fmt: skip


DISPUTE_WORDS = 6
"""Words of the subject a disagreement query keeps: a person types a short query."""


def _disagreement(topic: str) -> Angle:
    shape = read_question(topic)
    subject = clip(" ".join(noun_phrases(topic)) or shape.subject, 200)
    asked = [w for w in raw_words(shape.asked) if w.lower() not in {"first", "both"}]
    short = " ".join((raw_words(subject) + asked)[:DISPUTE_WORDS])
    return _angle(
        "Disagreement and corrections",
        f"Where do sources disagree about {subject}{f' ({chr(32).join(asked)})' if asked else ''}?",
        [f"{short} disputed", f"{short} controversy", f"{short} correction"],
    )


def code_angles(topic: str) -> list[Angle]:
    """The question's angles (see the module docstring), distinct and non-overlapping."""
    shape = read_question(topic)
    subs = sub_questions(topic)
    sides = [s for s in subs if s.angle == "side"]
    angles: list[Angle] = []
    if sides:
        angles += [_from(s, s.about) for s in sides]
        angles.append(_from(subs[0], "The comparison as asked"))
    elif shape.is_question and shape.kind not in ("how", "topic"):
        angles.append(_from(subs[0], "The question as asked"))
        bridges = [s for s in subs if s.angle == "bridge"]
        angles += [_from(s, f"First look-up: {s.about}") for s in bridges]
        inside = {w for s in bridges for w in raw_words(s.text)}  # named by a look-up
        nouns = [w for w in raw_words(shape.asked) if not is_participle(w)]
        for entity in [e for e in shape.entities if not set(raw_words(e)) <= inside][:2]:
            queries = [f"{entity} {shape.asked}", entity, *(f"{entity} {n}" for n in nouns)]
            angles.append(_angle(entity, f"What is known about {entity}?", queries))
    elif shape.is_question:  # how / why: the explanation, its history, its disputes
        angles.append(_from(subs[0], "The question as asked"))
        subject = (noun_phrases(topic) or [clip(key_phrase(topic))])[0]
        angles += _topic_angles(subject)[1:]
    else:
        angles += _topic_angles(topic)
    angles.append(_disagreement(topic))
    return _distinct(angles)


def _distinct(angles: list[Angle]) -> list[Angle]:
    """Each angle with only the queries no earlier angle has (topped up from its own
    sub-question as typed), and no two angles on one sub-question."""
    used: set[str] = set()
    questions: set[str] = set()
    kept = []
    for angle in angles:
        if angle.question.casefold() in questions:
            continue
        questions.add(angle.question.casefold())
        own = [q for q in dict.fromkeys(angle.queries) if q and q.casefold() not in used]
        names = list(read_question(angle.question).entities) or [clip(key_phrase(angle.question))]
        frame = {"known", "changed", "time", "work", "disagree", "sources"}
        key = " ".join(w for w in raw_words(key_phrase(angle.question)) if w not in frame)
        spare = [key, " ".join(names), *names, f"{names[0]} overview",
                 f"{names[0]} definition", f"{names[0]} {angle.name.lower()}"]  # fmt: skip
        for extra in spare:
            if len(own) >= MIN_QUERIES:
                break
            if extra and extra.casefold() not in used | {q.casefold() for q in own}:
                own.append(extra)
        used.update(q.casefold() for q in own)
        kept.append(
            Angle(angle.name, angle.description, tuple(own[:MAX_QUERIES]), angle.source_types,
                  angle.question)
        )  # fmt: skip
    return kept
