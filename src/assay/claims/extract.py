"""Claim extraction: after each source is read, the claims it makes about the question.

Each draft claim comes with the verbatim quote it rests on and that quote's offsets in
the snapshot, so it enters the ledger already carrying checkable evidence. The model
extractor (model_extract.py) reads passages of the page, numbered by sentence, names the
sentence each claim rests on, and the code takes that sentence, with its offsets, as the
quote. The extractive extractor uses the picker's sentences as they are.

A page read (``read_on_topic``) may also say whether the question is now answered and what
to search next: a ``PageReader`` (the model extractor) says so in the same call.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from assay.claims.picker import is_fragment, pick_claims
from assay.claims.standalone import stand_alone
from assay.events import ClaimCreated
from assay.models.fallback import Ran, Step
from assay.reading.relevance import Relevance
from assay.store.claims import ClaimRecord, Confidence, Evidence, RecordedRelevance
from assay.store.runs import Run
from assay.text import content_words, looks_like_instruction, raw_words

PASSAGE_SENTENCES = 8


@dataclass(frozen=True)
class DraftClaim:
    """A claim a source makes, with the quote (and its offsets) it rests on."""

    text: str
    quote: str
    start: int
    end: int
    confidence: Confidence = "medium"


class ClaimExtractor(Protocol):
    """Draws the claims a page makes about a question, each with its verbatim quote.

    ``text`` is the page's text (its snapshot), ``title`` its title (a model reads it with
    the passages); at most ``max_claims`` drafts, each quote at its offsets in ``text``.
    """

    name: str

    async def extract(
        self, question: str, text: str, *, title: str = "", max_claims: int = 3
    ) -> list[DraftClaim]: ...


@dataclass(frozen=True)
class PageReading:
    """What one read of a page gave: its claims, who drew them, and — from a reader that
    says so — whether the question is now answered and what to search next."""

    drafts: list[DraftClaim]
    created_by: str
    answered: bool = False
    search: str = ""
    """A short follow-up query naming what the page points to ("" for none)."""
    asked: bool = False
    """Whether a model was asked whether the question is answered (False: no call, or
    a claims-only extractor)."""


@runtime_checkable
class PageReader(Protocol):
    """An extractor that, in the same call, also says whether ``known`` (facts from earlier
    pages) and the page answer the question, and what to search for next."""

    name: str

    async def read(
        self,
        question: str,
        text: str,
        *,
        title: str = "",
        known: Sequence[str] = (),
        max_claims: int = 3,
    ) -> PageReading: ...


class ExtractiveExtractor:
    """The picker's most relevant sentences, each its own claim and quote."""

    name = "extractive"

    async def extract(
        self, question: str, text: str, *, title: str = "", max_claims: int = 3
    ) -> list[DraftClaim]:
        picked = pick_claims(question, text, max_claims=max_claims, title=title)
        best = max((p.score for p in picked), default=0.0)
        return [
            DraftClaim(
                p.sentence,
                p.sentence,
                p.start,
                p.end,
                "high" if p.score >= 0.8 * best else "medium",
            )
            for p in picked
        ]


async def extract_on_topic(
    extractor: ClaimExtractor,
    question: str,
    text: str,
    relevant: Callable[[str], bool],
    *,
    title: str = "",
    max_claims: int = 3,
) -> tuple[list[DraftClaim], str]:
    """The claims of ``text`` and the name of the extractor that drew them (the model's,
    or ``extractive`` when the page cost no model call or the model drew nothing from it);
    ``read_on_topic`` without the follow-up."""
    reading = await read_on_topic(
        extractor, question, text, relevant, title=title, known=None, max_claims=max_claims
    )
    return reading.drafts, reading.created_by


async def read_on_topic(
    extractor: ClaimExtractor,
    question: str,
    text: str,
    relevant: Callable[[str], bool],
    *,
    title: str = "",
    known: Sequence[str] | None = (),
    max_claims: int = 3,
) -> PageReading:
    """One read of a page: its claims and, from a ``PageReader`` given what is ``known``
    (None: claims only), whether the question is answered and what to search next.

    A page none of whose most relevant sentences is on topic (``relevant``) costs no model
    call: the extractive picks are recorded instead, so the page stays in the ledger, and
    its claims are judged off-topic as a model's would have been. On HotpotQA model runs,
    a quarter of the pages read were such pages (a dice game's page for a question on a
    word's meaning), and the only claims a model drew from them echoed the question ("Vell
    is a ferryman named by Osric"): no source of an answer was among them.
    """
    extractive = ExtractiveExtractor()
    if extractor.name == extractive.name:
        drafts = await extractive.extract(question, text, title=title, max_claims=max_claims)
        return PageReading(drafts, extractive.name)
    picks = pick_claims(question, text, max_claims=PASSAGE_SENTENCES, title=title)
    if not any(relevant(p.sentence) for p in picks):
        drafts = await extractive.extract(question, text, title=title, max_claims=max_claims)
        return PageReading(drafts, extractive.name)
    if known is not None and isinstance(extractor, PageReader):
        reading = await extractor.read(
            question, text, title=title, known=known, max_claims=max_claims
        )
    else:
        drafts = await extractor.extract(question, text, title=title, max_claims=max_claims)
        reading = PageReading(drafts, extractor.name)
    if reading.drafts:
        return reading
    # An on-topic page of which the model wrote nothing: asked "are both airports in the
    # same state?", the local model listed no claim from one airport's page (nothing on it
    # answers the whole question), and the run lost "… located in Brannock County, Ohio".
    # The page's most relevant on-topic sentences stand as its claims instead.
    on_topic = [p for p in picks if relevant(p.sentence)][:UNANSWERED_PAGE_CLAIMS]
    drafts = [DraftClaim(p.sentence, p.sentence, p.start, p.end) for p in on_topic]
    return PageReading(
        drafts, extractive.name, reading.answered, reading.search, asked=reading.asked
    )


async def read_else_extract(
    extractor: ClaimExtractor,
    question: str,
    text: str,
    relevant: Callable[[str], bool],
    *,
    title: str = "",
    known: Sequence[str] | None = (),
    max_claims: int = 3,
) -> Ran[PageReading]:
    """``read_on_topic``, else — the model failed, and the ``step.fallback`` event says
    why — the extractive engine's claims of the page (``Ran.failure`` is then set and the
    reading says nothing of what to search next)."""

    async def by_model() -> PageReading:
        return await read_on_topic(
            extractor, question, text, relevant, title=title, known=known, max_claims=max_claims
        )

    async def by_rules() -> PageReading:
        drafts = await ExtractiveExtractor().extract(
            question, text, title=title, max_claims=max_claims
        )
        return PageReading(drafts, ExtractiveExtractor.name)

    return await Step("claims.read_page", by_model, by_rules, extractor.name).run()


UNANSWERED_PAGE_CLAIMS = 2
"""Claims kept from an on-topic page the model drew none from (each costs judge calls)."""


MIN_CLAIM_WORDS = 4
"""Words a model's claim needs to state something ("Vell is a ferryman")."""


def states_something(text: str) -> bool:
    """Whether a model's claim is a statement: long enough to say something, not cut."""
    return len(raw_words(text)) >= MIN_CLAIM_WORDS and not is_fragment(text)


ECHOED_WORDS = 2
"""Words of the question a claim may carry that its sentence lacks: one is a paraphrase
("founded" → "established"), two or more is the question's own frame."""


def echoes_question(claim: str, sentence: str, question: str, page: str = "") -> bool:
    """Whether ``claim`` fills the question's frame with words its sentence does not say:
    two or more of them, or one the whole ``page`` never uses, or a "yes"/"no" up front.

    The local 1.5B model answered "What language was the chronicle of Ida Brannock's abbey
    written in?" with the claim "The language of the chronicle of Ida Brannock's abbey was
    English", quoting "Ida Brannock … was an English scholar": the claim's "language",
    "chronicle" and "abbey" came from the question, not from the page. Such a claim
    states what was asked, not what was read. Asked "Do Tarn Valley Airport and Larkspur
    Airport serve the same county?", it wrote "Yes, Tarn Valley … and Larkspur … serve the
    same county" from a page on the Larkspur airport that never names Tarn Valley.
    """
    if [word.lower() for word in raw_words(claim)[:1]] in (["yes"], ["no"]):
        return True
    stated = set(content_words(sentence))
    asked = set(content_words(question))
    borrowed = {word for word in content_words(claim) if word in asked and word not in stated}
    unread = borrowed - set(content_words(page)) if page and borrowed else set()
    return len(borrowed) >= ECHOED_WORDS or bool(unread)


def record_claims(
    run: Run,
    source_id: str,
    drafts: list[DraftClaim],
    *,
    created_by: str,
    reason: str,
    subject: str = "",
    relevance_of: Callable[[str], Relevance] | None = None,
) -> list[ClaimRecord]:
    """Append each draft to claims.jsonl at once (never batched), with its quote as evidence.

    With ``subject`` (the page's subject) a claim's text is made to stand alone
    (standalone.py; the text as stated is kept in ``stated_as`` for the judges); with
    ``relevance_of`` its relevance is recorded in its line.
    """
    ledger = run.claim_ledger
    recorded = []
    for draft in drafts:
        text = stand_alone(draft.text, subject)
        if ledger.with_text(text) is not None or looks_like_instruction(draft.quote):
            continue
        found = relevance_of(text).to_json() if relevance_of is not None else None
        claim = ClaimRecord(
            id=ledger.next_id(),
            text=text,
            confidence=draft.confidence,
            sourceIds=[source_id],
            reason=reason,
            evidence=[
                Evidence(sourceId=source_id, quote=draft.quote, start=draft.start, end=draft.end)
            ],
            created_by=created_by,
            relevance=None if found is None else RecordedRelevance.model_validate(found),
            stated_as=draft.text if text != draft.text else None,
        )
        ledger.append(claim)
        run.events.emit(
            ClaimCreated(id=claim.id, confidence=claim.confidence, source_ids=claim.source_ids)
        )
        recorded.append(claim)
    return recorded
