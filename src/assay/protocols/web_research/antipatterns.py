"""The spec's anti-patterns, detected by code.

    unattributed   a sentence of the synthesis with no [URL] next to it
    vague          a vague attribution ("some say", "it is said", "many believe",
                   "experts claim"...): it names no concrete source; a link to the page
                   that repeats the hearsay does not make it one, so it is flagged even
                   next to a URL
    single_source  the whole output rests on one source (the spec's minimum is 3)

(The fourth, a URL that violates robots.txt, is the fetcher's: such a page is never read.)

Three uses: the extractive engine never takes a vague sentence as a key point; a model's
theme summaries are validated with ``sentence_problems`` so a bad one is fed back for a
bounded retry; and the renderers drop any sentence that still has a problem, then run
``markdown_problems`` over the finished synthesis as a last guard whose findings become
warnings in the output.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Literal

from assay.store.markers import cited_urls
from assay.text import split_sentences

Kind = Literal["unattributed", "vague", "single_source"]

_SPEECH = (
    r"(?:say|said|says|believe|believed|believes|claim|claimed|claims|argue|argued|think|"
    r"thought|feel|suggest|suggested|maintain|contend|insist|agree|agreed|report|reported)"
)
_WHO = r"(?:people|experts|sources|observers|scientists|researchers|analysts|commentators|folks)"
_VAGUE = re.compile(
    rf"\b(?:some|many|most|several|various|certain|numerous)\s+(?:{_WHO}\s+)?{_SPEECH}\b"
    rf"|\b(?:experts|scientists|researchers|sources|observers|analysts|people|they)\s+{_SPEECH}\b"
    r"|\bit\s+(?:is|was|has\s+been)\s+(?:said|believed|claimed|thought|rumou?red|alleged|"
    r"widely\s+(?:believed|accepted|known|held|reported|thought))\b"
    r"|\b(?:is|are|was|were)\s+(?:said|believed|rumou?red|thought|alleged|reputed)\s+to\b"
    r"|\baccording\s+to\s+(?:some|many|experts|sources|reports|rumou?rs|most)\b"
    r"|\b(?:rumou?r\s+has\s+it|word\s+has\s+it|reportedly|allegedly|supposedly)\b",
    re.IGNORECASE,
)
_SYNTHESIS_END = re.compile(r"^(?:### Sources|## References|## Warnings|### Warnings|---)\s*$")


@dataclass(frozen=True)
class Problem:
    """One anti-pattern found: its kind, the sentence, and what to do about it."""

    kind: Kind
    sentence: str
    message: str


def vague_phrase(text: str) -> str | None:
    """The vague attribution in ``text`` ("some say", "it is said"...), if any."""
    match = _VAGUE.search(text)
    return match.group() if match else None


def has_url(text: str) -> bool:
    """Whether ``text`` cites a URL as a link (``<url>`` or ``[text](url)``)."""
    return bool(cited_urls(text))


def sentence_problems(
    sentence: str, *, attributed: Callable[[str], bool] = has_url
) -> list[Problem]:
    """The anti-patterns of one sentence: no attribution, a vague attribution."""
    problems = []
    shown = " ".join(sentence.split())
    if not attributed(sentence):
        problems.append(
            Problem(
                "unattributed", shown, "this sentence is tied to no source: cite one or drop it"
            )
        )
    phrase = vague_phrase(sentence)
    if phrase is not None:
        problems.append(
            Problem(
                "vague",
                shown,
                f'"{phrase}" is a vague attribution: state what a cited source says, or drop it',
            )
        )
    return problems


def single_source_problem(urls: Iterable[str], sentences: int) -> Problem | None:
    """A problem when ``sentences`` claims all rest on at most one distinct source."""
    distinct = set(urls)
    if sentences and len(distinct) <= 1:
        return Problem(
            "single_source",
            "",
            "the whole synthesis rests on one source; web research needs at least 3 sources",
        )
    return None


def split_claim_sentences(text: str) -> list[str]:
    """Sentences of a paragraph or bullet; a fragment without punctuation at its end (an
    abbreviation the splitter cut at) is joined to the next one."""
    pieces = [s.text for s in split_sentences(text)]
    merged: list[str] = []
    carry = ""
    for piece in pieces:
        joined = f"{carry} {piece}".strip()
        if has_url(joined) or joined.rstrip("\"'”’)]").endswith((".", "!", "?")):
            merged.append(joined)
            carry = ""
        else:
            carry = joined
    if carry:
        merged.append(carry)
    return merged


def synthesis_lines(markdown: str) -> list[str]:
    """The synthesis of a rendered output: its paragraphs and bullets, without headings,
    blank lines, italic notes, or anything from the source list onwards."""
    kept = []
    started = False
    for line in markdown.splitlines():
        stripped = line.strip()
        if _SYNTHESIS_END.match(stripped):
            if started:
                break
            continue
        if stripped.startswith("## "):
            started = True
            continue
        if not started or not stripped or stripped.startswith(("#", ">")):
            continue
        if stripped.startswith("_") and stripped.endswith("_"):
            continue  # an italic note about the research itself, not a claim
        kept.append(stripped.removeprefix("- "))
    return kept


def markdown_problems(markdown: str) -> list[Problem]:
    """Every anti-pattern left in a rendered output's synthesis (the last guard)."""
    problems: list[Problem] = []
    urls: list[str] = []
    count = 0
    for line in synthesis_lines(markdown):
        for sentence in split_claim_sentences(line):
            count += 1
            urls.extend(cited_urls(sentence))
            problems.extend(sentence_problems(sentence))
    single = single_source_problem(urls, count)
    if single is not None:
        problems.append(single)
    return problems
