"""Claim picking without a model: a source's sentences most relevant to the question.

A page's sentences are ranked by a fitted combination (``benchmarks/fit_picker.py``, stored
in ``data/picker.json`` with the split and commit): BM25 over the page's own sentences (a
word the page repeats everywhere counts for little), the sentence's relevance to the
question as ``reading.relevance`` reads it (sentence embeddings and word overlap, the page
title counting), whether it states a value of the kind asked (a date for "when …?"), and
whether it opens the page. So "She is an American cartoonist" can stand first for "What
is Ada Vell's occupation?" on Ada Vell's page though it shares no word with the question.
A sentence is picked when it shares a content word with the question or clears the
relevance bar. On a long page only BM25's ``CANDIDATES`` best sentences are read.
Headings, table rows, navigation, questions, fragments (a sentence cut at its start, or
with unpaired brackets), run-ons and anything that
addresses an AI agent are never picked: page text is data, and a sentence written to steer
an agent must not become a claim.

Each pick carries its offsets into the text (``text[start:end] == sentence``), so the claim
ledger can record a quote that the mechanical check finds again.
"""

from __future__ import annotations

import json
import math
import re
from collections import Counter
from dataclasses import dataclass
from functools import cache
from importlib import resources

from assay.claims.normalize import normalize_text
from assay.reading.logistic import Logistic
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
FEATURES = ("bm25", "relevance", "states_value", "opens_page")
"""What ``candidates`` computes per sentence, in order; the data file names the same list.
``bm25`` is relative to the page's best sentence, so pages of any length compare."""
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


@dataclass(frozen=True)
class Candidates:
    """The sentences of a page read for a question: each one's features (``FEATURES``, in
    order) and whether it may be picked at all (it shares a word with the question or is
    relevant)."""

    sentences: tuple[Sentence, ...]
    features: tuple[tuple[float, ...], ...]
    eligible: tuple[bool, ...]


def candidates(question: str, text: str, title: str = "") -> Candidates:
    """The claimable sentences of ``text`` that are read for ``question`` (BM25's best
    ``CANDIDATES``, in page order), with their features."""
    from assay.reading.relevance import relevances  # loads the embedder on first use

    query = set(content_words(question))
    sentences = [s for s in split_sentences(text) if claimable(s)]
    if not query or not sentences:
        return Candidates((), (), ())
    documents = [content_words(s.text) for s in sentences]
    frequency = Counter(word for document in documents for word in set(document))
    average = sum(len(d) for d in documents) / len(documents) or 1.0
    lexical = [_bm25(query, d, frequency, len(documents), average) for d in documents]
    read = sorted(sorted(range(len(sentences)), key=lambda i: -lexical[i])[:CANDIDATES])
    found = relevances(question, [sentences[i].text for i in read], [title] * len(read))
    top = max(lexical) or 1.0
    shape = shape_of(question)
    rows = tuple(
        (
            lexical[i] / top,
            r.score,
            float(bool(asked_values(shape, sentences[i].text))),
            float(i == 0),
        )
        for i, r in zip(read, found, strict=True)
    )
    eligible = tuple(lexical[i] > 0 or r.relevant for i, r in zip(read, found, strict=True))
    return Candidates(tuple(sentences[i] for i in read), rows, eligible)


def pick_claims(question: str, text: str, *, max_claims: int = 3, title: str = "") -> list[Picked]:
    """Up to ``max_claims`` sentences of ``text`` (a page titled ``title``, "" for none) most
    likely to speak to ``question`` by the fitted ranking, best first; ties go to the
    earlier sentence, so the choice is deterministic."""
    if max_claims <= 0:
        return []
    read = candidates(question, text, title)
    model = fitted_picker()
    picked = [
        Picked(sentence.text, sentence.start, sentence.end, round(model.score(row), 6))
        for sentence, row, eligible in zip(
            read.sentences, read.features, read.eligible, strict=True
        )
        if eligible
    ]
    # a sentence the page repeats is one claim, quoted where it first stands
    chosen: list[Picked] = []
    seen: set[str] = set()
    for pick in sorted(picked, key=lambda p: p.start):
        key = normalize_text(pick.sentence).lower()
        if key not in seen:
            seen.add(key)
            chosen.append(pick)
    chosen.sort(key=lambda p: (-p.score, p.start))
    return chosen[:max_claims]


@cache
def fitted_picker() -> Logistic:
    """The weights in ``data/picker.json`` (read once)."""
    data = json.loads(resources.files("assay.claims").joinpath("data/picker.json").read_text())
    if tuple(data["features"]) != FEATURES:
        raise ValueError(f"picker.json was fitted on {data['features']}, not {FEATURES}")
    return Logistic(tuple(float(w) for w in data["weights"]), float(data["bias"]), 0.5)


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
