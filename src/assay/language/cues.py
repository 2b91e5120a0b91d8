"""What a question in another language asks for, said as English's question words.

``reading.questions.shape_of`` reads a question's kind (when, who, where, how many, how tall,
yes or no) from English question words. In a run in another language (``assay.language``)
it reads ``english_cues(question)`` instead: the question with the English words its own
question words mean put before it ("Wie hoch ist …" → "how high Wie hoch ist …"). Only
the kind is read from the cue; the names, the event and the options are read from the
question as it was written. An English run's question is left as it is.
"""

from __future__ import annotations

import re

from assay.language import ENGLISH, current_language

# (pattern, the English it means); Latin-script cues must open the question, CJK ones
# (which close it: "…有多高？") may stand anywhere. First match wins: longest first.
_CUES: dict[str, tuple[tuple[str, str], ...]] = {
    "de": (
        (r"in welchem jahr\b", "in what year"), (r"wann\b", "when"), (r"wer\b", "who"),
        (r"wo\b", "where"), (r"wie (?:viele|viel)\b", "how many"),
        (r"wie (?:hoch|groß|gross)\b", "how high"), (r"wie (?:lang|weit)\b", "how long"),
        (r"wie alt\b", "how old"), (r"warum\b", "why"), (r"wie\b", "how"),
        (r"(?:ist|sind|war|waren|hat|haben|gibt)\b", "is"),
    ),
    "fr": (
        (r"en quelle année\b", "in what year"), (r"quand\b", "when"), (r"qui\b", "who"),
        (r"où\b", "where"), (r"combien\b", "how many"),
        (r"quelle est la (?:hauteur|taille)\b", "how high"),
        (r"quelle est la (?:longueur|distance)\b", "how long"), (r"quel âge\b", "how old"),
        (r"pourquoi\b", "why"), (r"comment\b", "how"), (r"(?:est-ce|est-il|est-elle)\b", "is"),
    ),
    "es": (
        (r"¿?en qué año\b", "in what year"), (r"¿?cuándo\b", "when"), (r"¿?quién\b", "who"),
        (r"¿?dónde\b", "where"), (r"¿?cuánt[oa]s?\b", "how many"),
        (r"¿?qué (?:altura|tan alt[oa])\b", "how high"), (r"¿?qué (?:longitud|distancia)\b",
         "how long"), (r"¿?por qué\b", "why"), (r"¿?cómo\b", "how"),
        (r"¿?(?:es|son|fue|era|tiene)\b", "is"),
    ),
    "zh": (
        (r"哪一年|哪年|什么时候|何时", "when"), (r"谁", "who"), (r"哪里|哪儿|在哪", "where"),
        (r"多少岁|多老|几岁", "how old"), (r"多少|几个|几", "how many"),
        (r"多高|多大", "how high"), (r"多长|多远", "how long"), (r"为什么", "why"),
        (r"怎么|如何", "how"),
        (r"是否|吗[？?]?$", "is"),
    ),
    "ja": (
        (r"何年|いつ", "when"), (r"誰|だれ", "who"), (r"どこ", "where"),
        (r"何人|いくつ|何個", "how many"), (r"高さ|何メートル", "how high"), (r"長さ", "how long"),
        (r"なぜ|どうして", "why"), (r"どのように|どうやって", "how"), (r"ですか[？?]?$", "is"),
    ),
}  # fmt: skip
_COMPILED = {
    code: tuple(
        (re.compile(p if code in ("zh", "ja") else rf"^\W*{p}", re.IGNORECASE), english)
        for p, english in cues
    )
    for code, cues in _CUES.items()
}


def english_cues(question: str) -> str:
    """``question`` with the English question words its own mean put before it, in a run
    in another language; as it is otherwise (English, or no cue found)."""
    code = current_language().code
    if code == ENGLISH:
        return question
    for pattern, english in _COMPILED.get(code, ()):
        if pattern.search(question.strip()):
            return f"{english} {question}"
    return question
