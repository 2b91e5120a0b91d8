"""Passages: what a model reads of a page — sentences with their neighbours, and a title.

A claim is one sentence, quoted verbatim; out of its page it often says little ("He was
born in 1950", "The band was formed in …": who?). What a model reads to draw claims, to
judge them and to answer is the passage around a sentence: the sentence, then its
neighbours, the one before first (that is where "he" is named), until the passage holds
``tokens`` estimated tokens, cut at sentence bounds. Windows of one page that overlap or
touch are merged, so no sentence is shown twice; ``ranked`` orders passages by the reading
layer's relevance to the question (the page title counts), and ``within`` keeps the best
that fit one call's budget. Each sentence of a passage is the page's text at its offsets,
so whatever a model points at in it can be quoted verbatim.

Nothing here reads a run: callers hand in the page's text (claims/passages.py reads it
from the run's snapshots).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from assay.reading.tokens import estimate_tokens
from assay.text import Sentence, split_sentences

PASSAGE_TOKENS = 160
"""A passage around one sentence: the sentence and about four neighbours of prose."""
CONTEXT_TOKENS = 8_192
"""The context the default budgets are sized for (the local model's, per slot)."""


@dataclass(frozen=True)
class ReadingBudget:
    """How much page text one model call reads, in estimated tokens.

    The defaults fit an 8K context and a small model that reads ~45 tokens a second:
    a page read shows at most ``page`` tokens of passages (with the system prompt, what is
    known and the reply, about a fifth of the context), and the answer step's whole prompt
    stays near ``answer``. A smaller context scales both down (``for_context``); a larger
    one keeps them, since a small model reads a long prompt worse, and slowly."""

    passage: int = PASSAGE_TOKENS
    page: int = 1_200
    answer: int = 2_000

    @classmethod
    def for_context(cls, context_window: int) -> ReadingBudget:
        """The budget for a model with ``context_window`` tokens (``ModelProfile``'s,
        which config can override)."""
        scale = min(1.0, context_window / CONTEXT_TOKENS)
        default = cls()
        return cls(
            passage=max(40, int(default.passage * scale)),
            page=max(200, int(default.page * scale)),
            answer=max(400, int(default.answer * scale)),
        )


@dataclass(frozen=True)
class Page:
    """A page as passages are cut from it: its id, its title and its readable sentences."""

    source_id: str
    title: str
    sentences: tuple[Sentence, ...]

    @classmethod
    def of(cls, source_id: str, title: str, text: str) -> Page:
        return cls(source_id, title, tuple(readable(text)))

    def around(self, start: int, end: int, tokens: int = PASSAGE_TOKENS) -> Passage | None:
        """The passage around ``start``–``end`` of this page (``around``)."""
        return around(
            self.sentences, start, end, source_id=self.source_id, title=self.title, tokens=tokens
        )


@dataclass(frozen=True)
class Passage:
    """Consecutive readable sentences ``first`` … ``last`` of one page, with its title."""

    source_id: str
    title: str
    sentences: tuple[Sentence, ...]
    first: int
    """The index of the first sentence among the page's readable sentences."""

    @property
    def last(self) -> int:
        return self.first + len(self.sentences) - 1

    @property
    def start(self) -> int:
        return self.sentences[0].start

    @property
    def end(self) -> int:
        return self.sentences[-1].end

    @property
    def text(self) -> str:
        return " ".join(s.text for s in self.sentences)

    @property
    def tokens(self) -> int:
        return estimate_tokens(self.text) + estimate_tokens(self.title)


def readable(page: str) -> list[Sentence]:
    """The sentences of ``page`` a passage is made of: headings name a topic, state
    nothing, and were picked by a small model as "the sentence that supports" a claim."""
    return [s for s in split_sentences(page) if s.kind != "heading"]


def around(
    sentences: Sequence[Sentence],
    start: int,
    end: int,
    *,
    source_id: str = "",
    title: str = "",
    tokens: int = PASSAGE_TOKENS,
) -> Passage | None:
    """The passage of ``sentences`` (a page's ``readable`` ones) around the text at
    ``start``–``end``: the sentences it overlaps, then neighbours, the one before first,
    while the passage fits ``tokens``; None when no sentence overlaps it."""
    core = [i for i, s in enumerate(sentences) if s.start < end and start < s.end]
    if not core:
        return None
    low, high = core[0], core[-1]
    used = sum(estimate_tokens(s.text) for s in sentences[low : high + 1])
    before = True
    while low > 0 or high < len(sentences) - 1:
        index = low - 1 if (before and low > 0) or high >= len(sentences) - 1 else high + 1
        cost = estimate_tokens(sentences[index].text)
        if used + cost > tokens:
            break
        used += cost
        low, high = min(low, index), max(high, index)
        before = not before
    return Passage(source_id, title, tuple(sentences[low : high + 1]), low)


def merged(passages: Iterable[Passage]) -> list[Passage]:
    """``passages`` with those of one page that overlap or touch joined into one, in the
    order each page first appears, and within a page in page order."""
    pages: dict[str, list[Passage]] = {}
    for passage in passages:
        pages.setdefault(passage.source_id, []).append(passage)
    out: list[Passage] = []
    for group in pages.values():
        joined: list[Passage] = []
        for passage in sorted(group, key=lambda p: p.first):
            if joined and passage.first <= joined[-1].last + 1:
                head = joined[-1]
                extra = passage.sentences[head.last - passage.first + 1 :]
                joined[-1] = Passage(head.source_id, head.title, head.sentences + extra, head.first)
            else:
                joined.append(passage)
        out += joined
    return out


def ranked(question: str, passages: Sequence[Passage]) -> list[Passage]:
    """``passages``, most relevant to ``question`` first (``reading.relevance``: meaning
    and words, the page title counting); ties keep their order."""
    from assay.reading.relevance import relevances  # loads the embedder on first use

    if len(passages) < 2:
        return list(passages)
    scores = relevances(question, [p.text for p in passages], [p.title for p in passages])
    order = sorted(range(len(passages)), key=lambda i: -scores[i].score)
    return [passages[i] for i in order]


def within(passages: Iterable[Passage], tokens: int) -> list[Passage]:
    """The passages, in the order given, that fit together in ``tokens`` (the first
    always: a call reads something)."""
    kept: list[Passage] = []
    used = 0
    for passage in passages:
        if kept and used + passage.tokens > tokens:
            continue
        kept.append(passage)
        used += passage.tokens
    return kept


def in_page_order(passages: Iterable[Passage]) -> list[Passage]:
    """Passages grouped by page (pages in the order given), each page's in page order."""
    pages: dict[str, list[Passage]] = {}
    for passage in passages:
        pages.setdefault(passage.source_id, []).append(passage)
    return [p for group in pages.values() for p in sorted(group, key=lambda p: p.first)]
