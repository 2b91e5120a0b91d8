"""Claim picking without a model: a source's sentences most relevant to the question.

Sentences are ranked by their relevance to the question as ``reading.relevance`` reads it
(sentence embeddings and word overlap, combined by the fitted model), so "She is an
American cartoonist" can answer "What is Ada Vell's occupation?" though it shares no
word with it. A sentence is picked when it shares a content word with the question or
clears the relevance bar. BM25 over the source's own sentences (a word the page repeats
everywhere counts for little) only bounds the reading on a long page: its ``CANDIDATES``
best sentences are read, then those it scores 0, in page order.
Headings, table rows, navigation, questions, fragments (a sentence cut at its start, or
with unpaired brackets), run-ons and anything that
addresses an AI agent are never picked: page text is data, and a sentence written to steer
an agent must not become a claim.

Each pick carries its offsets into the text (``text[start:end] == sentence``), so the claim
ledger can record a quote that the mechanical check finds again.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from dataclasses import dataclass

from assay.claims.normalize import normalize_text
from assay.reading.questions import asked_values, shape_of
from assay.text import (
    Sentence,
    content_words,
    is_question,
    looks_like_instruction,
    raw_words,
    split_sentences,
)

MIN_WORDS = 5
MAX_WORDS = 60
_K1 = 1.2
_B = 0.75
CANDIDATES = 40
"""The sentences of a page read for relevance, BM25's best first: a lab page has fewer,
a long web page's others share few of the question's words."""
_NAVIGATION = re.compile(
    r"\b(?:click here|read more|sign in|sign up|log in|subscribe|privacy policy|"
    r"terms of (?:use|service)|all rights reserved|skip to|share (?:this|on)|follow us|"
    r"(?:accept|use|uses|allow) cookies|cookie (?:policy|settings|preferences)|"
    r"back to top|newsletter|advertisement|related articles)\b|[|»›·•]|\]\(",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Picked:
    """A sentence of the source text chosen as a claim, with its exact offsets and score."""

    sentence: str
    start: int
    end: int
    score: float


def pick_claims(question: str, text: str, *, max_claims: int = 3, title: str = "") -> list[Picked]:
    """Up to ``max_claims`` sentences of ``text`` (a page titled ``title``, "" for none) most
    relevant to ``question``, best first.

    A sentence shares at least one content word with the question or clears the relevance
    bar, or it is not picked; ties go to the earlier sentence, so the choice is
    deterministic. The score is the sentence's fitted relevance.
    """
    from assay.reading.relevance import fitted_model, relevances  # loads on first use

    query = set(content_words(question))
    sentences = [s for s in split_sentences(text) if claimable(s)]
    if not query or not sentences or max_claims <= 0:
        return []
    documents = [content_words(s.text) for s in sentences]
    frequency = Counter(word for document in documents for word in set(document))
    average = sum(len(d) for d in documents) / len(documents) or 1.0
    lexical = [_bm25(query, d, frequency, len(documents), average) for d in documents]
    read = sorted(range(len(sentences)), key=lambda i: (-lexical[i], i))[:CANDIDATES]
    found = relevances(question, [sentences[i].text for i in read], [title] * len(read))
    bar = fitted_model().threshold
    picked = [
        Picked(sentences[i].text, sentences[i].start, sentences[i].end, round(r.score, 6))
        for i, r in zip(read, found, strict=True)
        if lexical[i] > 0 or r.relevant
    ]
    # a relevant sentence that states a value of the kind asked ("when …?": a date) can
    # answer; one that does not, however close in meaning, cannot
    shape = shape_of(question)
    picked.sort(
        key=lambda p: (not (p.score >= bar and asked_values(shape, p.sentence)), -p.score, p.start)
    )
    chosen: list[Picked] = []
    seen: set[str] = set()
    for pick in picked:
        key = normalize_text(pick.sentence).lower()
        if key not in seen:
            seen.add(key)
            chosen.append(pick)
    return chosen[:max_claims]


def claimable(sentence: Sentence) -> bool:
    """Whether a sentence could be a claim: prose, declarative, sized, not addressed to us."""
    if sentence.kind in ("heading", "table"):
        return False
    text = sentence.text
    count = len(raw_words(text))
    if not MIN_WORDS <= count <= MAX_WORDS or is_question(text):
        return False
    if _NAVIGATION.search(text) or looks_like_instruction(text):
        return False
    letters = sum(ch.isalpha() for ch in text)
    return letters >= 0.5 * len(text) and not is_fragment(text)


def is_fragment(text: str) -> bool:
    """A cut sentence ("Button) as …", "and then …"): it starts in lower case or with
    closing punctuation, or its brackets do not pair up."""
    first = text.lstrip("\"'“‘«")[:1]
    if not first or first.islower() or first in ")]},;:.-–—":
        return True
    return any(text.count(a) != text.count(b) for a, b in ("()", "[]"))


def _bm25(
    query: set[str], document: list[str], frequency: Counter[str], total: int, average: float
) -> float:
    counts = Counter(document)
    score = 0.0
    for word in query & counts.keys():
        idf = math.log(1 + (total - frequency[word] + 0.5) / (frequency[word] + 0.5))
        tf = counts[word]
        score += idf * tf * (_K1 + 1) / (tf + _K1 * (1 - _B + _B * len(document) / average))
    return score
