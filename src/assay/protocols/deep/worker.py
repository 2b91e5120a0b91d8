"""Phase 2: one worker researches one direction.

A worker gets a ``WorkerTask`` (the spec's task prompt as data) and the tools to gather —
webSearch and readUrl through the run's ``GatherSession``, and the claim extractor — and
nothing else: it holds no reference to the planner, so it cannot start another worker.
It searches its queries, scores each result's authority and recency against the
criteria, fetches the accepted ones (round-robin over the queries, so every angle gets a
source), records each source's facts in the claim ledger, and writes its findings file.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from assay.claims.extract import ClaimExtractor, extract_on_topic, record_claims
from assay.claims.standalone import page_subject, stand_alone
from assay.engines.extractive.asking import read_question
from assay.gather.search.base import SearchResult
from assay.gather.session import GatherSession
from assay.protocols.deep.findings import Confidence, Fact, Findings, SourceNote
from assay.protocols.deep.plan import Criteria
from assay.protocols.deep.scoring import authority, recency
from assay.reading.relevance import Relevance, relevance
from assay.store.runs import Run
from assay.text import content_words

MAX_SOURCES = 5
FACTS_PER_SOURCE = 2

TEMPLATE = """direction: {direction}
search_queries:
{queries}
acceptance_criteria: {acceptance}
output_file: {output_file}
search_method: {search_method}
search_instructions: |
  {instructions}"""


@dataclass(frozen=True)
class WorkerTask:
    """The task prompt of one worker, as the spec's template lists it."""

    number: int
    direction: str
    queries: tuple[str, ...]
    acceptance: Criteria
    output_file: Path
    search_method: str
    search_instructions: str
    covered_urls: frozenset[str] = frozenset()  # the planner's adjustment: read already
    attempt: int = 1
    question: str = ""  # the sub-question a fact's relevance is measured against
    topic: str = ""

    def prompt(self) -> str:
        return TEMPLATE.format(
            direction=self.direction,
            queries="\n".join(f"  - {q}" for q in self.queries),
            acceptance=self.acceptance.render(),
            output_file=self.output_file,
            search_method=self.search_method,
            instructions=self.search_instructions.replace("\n", "\n  "),
        )


class Worker:
    """Runs one task with the gathering tools it is given, and nothing more."""

    def __init__(
        self,
        run: Run,
        session: GatherSession,
        extractor: ClaimExtractor,
        *,
        max_sources: int | None = None,
    ) -> None:
        self._run = run
        self._session = session
        self._extractor = extractor
        self._max_sources = MAX_SOURCES if max_sources is None else max_sources
        self._questions: list[str] = []

    async def run(self, task: WorkerTask) -> Findings:
        findings = Findings(task.number, task.direction, list(task.queries), attempt=task.attempt)
        self._questions = [q for q in (task.question, task.topic) if q] or [task.direction]
        outcome = await self._session.search(list(task.queries))
        for query, error in outcome.errors.items():
            findings.notes.append(f"query {query!r} failed: {error}")
        notes = [self._judge(result, task.acceptance) for result in outcome.results]
        chosen = _round_robin(notes, list(task.queries), task.covered_urls)
        if any(n.url in task.covered_urls for n in chosen):
            findings.notes.append("some sources were read by an earlier direction already")
        fetched: dict[str, SourceNote] = {}
        for note in chosen:
            if len(fetched) >= self._max_sources:
                break
            fetched[note.url] = await self._fetch(note, findings)
        findings.sources = [fetched.get(n.url, n) for n in notes]
        task.output_file.write_text(findings.to_markdown(task.prompt()), encoding="utf-8")
        return findings

    def _judge(self, result: SearchResult, criteria: Criteria) -> SourceNote:
        score = authority(result.url)
        recent, label = recency(result.published_date, criteria.min_year)
        accepted = score >= criteria.min_authority and recent
        if not recent:
            reason = "too old for the criteria"
        elif not accepted:
            reason = f"authority {score} below {criteria.min_authority}"
        else:
            reason = "meets the criteria"
        return SourceNote(result.url, result.title, result.query, score, label, accepted, reason)

    async def _fetch(self, note: SourceNote, findings: Findings) -> SourceNote:
        read = await self._session.read(note.url)
        if read is None:
            return SourceNote(
                note.url, note.title, note.query, note.authority, note.recency, False,
                "could not be fetched",
            )  # fmt: skip
        source_id = read.record.id
        drafts, created_by = await extract_on_topic(
            self._extractor,
            note.query,
            read.text,
            lambda sentence: fact_relevance(self._questions, sentence, note.title).relevant,
            title=read.record.title or note.title,
            max_claims=FACTS_PER_SOURCE,
        )
        # A fact names its page's subject ("The company was founded in 1959" → "Little
        # Caesars was founded in 1959"): out of its page, a comparison reads whose it is.
        subject = page_subject(read.record.title or note.title)
        record_claims(
            self._run,
            source_id,
            drafts,
            created_by=created_by,
            reason=f"stated by {source_id} for the query {note.query!r} ({findings.direction})",
            subject=subject,
        )
        ledger = self._run.claim_ledger
        for draft in drafts:
            claim = ledger.with_text(stand_alone(draft.text, subject))
            if claim is None:
                continue  # refused: page text that addresses an agent is never a fact
            rel = fact_relevance(self._questions, claim.text, note.title)
            angle = relevance(note.query, claim.text, title=note.title)
            confidence: Confidence = "low"  # until the planner has verified it
            own = established(self._questions[0], claim.text, read.record.title or note.title)
            findings.facts.append(
                Fact(
                    claim.text, note.url, source_id, claim.id, confidence, note.query,
                    round(rel.score, 3), rel.relevant, rel.relevant and angle.relevant, rel.method,
                    established=own,
                )
            )  # fmt: skip
        return SourceNote(
            note.url, note.title, note.query, note.authority, note.recency, True,
            note.reason, source_id,
        )  # fmt: skip


def _round_robin(
    notes: list[SourceNote], queries: list[str], covered: frozenset[str]
) -> list[SourceNote]:
    """Accepted sources in fetch order: one per query in turn, new URLs before ones an
    earlier direction read already."""
    accepted = [n for n in notes if n.accepted]
    ordered = [n for n in accepted if n.url not in covered] + [
        n for n in accepted if n.url in covered
    ]
    queues = {q: [n for n in ordered if n.query == q] for q in queries}
    chosen: list[SourceNote] = []
    while any(queues.values()):
        for query in queries:
            if queues[query]:
                chosen.append(queues[query].pop(0))
    return chosen


def established(question: str, text: str, title: str) -> bool:
    """Whether a fact establishes something for the sub-question ``question``: it is
    relevant to that sub-question itself, and it (or its page's title) names one of the
    things the sub-question names, whole (every word of "Larkspur Publishing House", or
    "Danish" of "Danish publishing houses"), when it names any."""
    if not relevance(question, text, title=title).relevant:
        return False
    names = read_question(question).entities
    said = set(content_words(f"{title} {text}"))
    return not names or any(set(content_words(n)) <= said for n in names)


def fact_relevance(questions: list[str], text: str, title: str) -> Relevance:
    """A fact's relevance: the best over the direction's sub-question and the topic."""
    return max((relevance(q, text, title=title) for q in questions), key=lambda r: r.score)
