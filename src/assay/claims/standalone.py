"""Claims that stand alone: a claim's text names its subject.

A copied sentence often leans on its page ("It was established in 1991", "The film
stars …"); as a claim, out of its page, it says nothing checkable. Its text is rewritten
to name the page's subject (the snapshot's title, without "(film)"-style qualifiers or a
site name) — "The Journal of Example Studies was established in 1991" — while its quote
stays the verbatim sentence at its offsets. A rewrite never adds a number the quote does
not state (the mechanical check would rightly fail it), so a title with a number the
sentence lacks is left out.
"""

from __future__ import annotations

import re

from assay.claims.normalize import numbers_in

_PRONOUN = re.compile(r"^(?:It|He|She|They)\b(?! (?:is|was) (?:also )?(?:said|reported|believed))")
_POSSESSIVE = re.compile(r"^(?:Its|His|Her|Their)\b")
_GENERIC = re.compile(
    r"^The (?:journal|film|movie|company|band|album|song|single|book|novel|group|team|club|"
    r"city|town|village|magazine|newspaper|university|college|school|game|series|show|"
    r"programme|program|station|airport|party|organi[sz]ation|species|genus|plant|building|"
    r"church|museum|river|island|ship|aircraft|car|player|singer|actor|actress|author|site|"
    r"project|tool|library|software|system|network|event|festival|award|race|war|battle)\b"
)
_NEAR_START = 30
_QUALIFIER = re.compile(r"\s*\([^)]*\)\s*$")
_SITE_SUFFIX = re.compile(r"\s+[-|–—:]\s+[^-|–—:]+$")


def page_subject(title: str | None) -> str:
    """The subject a page is about, from its title: "Orange Creeps (film) - Wiki" → "Orange
    Creeps"."""
    subject = (title or "").strip()
    subject = _SITE_SUFFIX.sub("", subject) if len(subject.split()) > 2 else subject
    return _QUALIFIER.sub("", subject).strip()


def stand_alone(sentence: str, subject: str) -> str:
    """``sentence`` with a leading pronoun or "the film"-style noun replaced by ``subject``
    (unchanged when it already names the subject or a rewrite would add a number)."""
    subject = subject.strip()
    if not subject or numbers_in(subject) - numbers_in(sentence):
        return sentence
    if subject.casefold() in sentence[: len(subject) + _NEAR_START].casefold():
        return sentence  # "The novel Orange Creeps was …" names its subject already
    generic = _GENERIC.match(sentence)
    named = subject
    if generic and subject.split(" ")[0].lower() == generic.group().split(" ")[1].lower():
        named = f"The {subject}"  # "The journal …" from "Journal of X" → "The Journal of X …"
    for pattern, replacement in (
        (_POSSESSIVE, f"{subject}'" if subject.endswith("s") else f"{subject}'s"),
        (_PRONOUN, subject),
        (_GENERIC, named),
    ):
        match = pattern.search(sentence)
        if match:
            return replacement + sentence[match.end() :]
    return sentence


_ANTECEDENT = re.compile(
    r"^(?:It|He|She|They|Its|His|Her|Their|This|These|That|Those|Such|Both|Each|"
    r"(?:Like|Unlike) (?:that|this|those|these|it|them)|The (?:other|same|latter|former))\b"
)


def leans_on_antecedent(sentence: str) -> bool:
    """Whether ``sentence`` opens with words that point back to an earlier one ("It was
    accepted in this role …", "Like that aircraft, it …", "The latter …"): out of its
    page it says nothing checkable unless ``stand_alone`` names its subject."""
    return bool(_ANTECEDENT.match(sentence.lstrip(" \"'“‘(")))
