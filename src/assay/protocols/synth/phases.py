"""The three phases, run by the MANAGER (this code), which never searches.

Phase 1: every searcher plans its own queries, gathers with its own tool and writes, all
at once (asyncio tasks); each sentence becomes a claim (a verbatim one with its quote),
and ``[PHASE1_DONE]`` is signalled. An agent's timers count only its own silence: the
gathering and recording assay does for it pause its clock.
Phase 2 starts only once every searcher has signalled or been blocked: each searcher
fact-checks every other searcher's response, assertion by assertion, with ``fact_check``
over its own GatherSession and its own judge, never counting the page the assertion rests
on nor any page of the same origin (a check that re-finds the cited page is circular).
Verdicts map from the engine's statuses, as the ledger supports them (``verdicts.py``):
VERIFIED on a located supporting quote, FALSE on a located refuting one (the check's, or
one the ledger holds against the assertion itself), else UNVERIFIABLE.

Phase 3: the chief author writes (an LLM, grounded prose) or arranges the statements
relevant to the topic that some fact-checker VERIFIED and none marked FALSE, the short
answer first; the rest that no one marked FALSE go under Unverified Claims, each with who
asserted it and only the pages found to support it ("no source found" when none does).

The ledgers are shared by the whole panel, so writes to claims.jsonl (record, append,
verify-and-rewrite) take one lock: a verification that rewrites the file never drops a
claim another agent appended meanwhile.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field

from assay.answers import answer_question
from assay.claims.engine import VerificationEngine
from assay.claims.judge import Judge
from assay.events import (
    ClaimCreated,
    Event,
    PhaseFinished,
    PhaseStarted,
    Signal,
    SynthChecked,
    WarningEvent,
)
from assay.gather.session import GatherSession
from assay.protocols.runner import RunContext
from assay.protocols.synth.agents import Narrative, Worker, gather
from assay.protocols.synth.contract import (
    ContractWorker,
    Statement,
    fetch_results,
    narrative_of,
    own_check,
)
from assay.protocols.synth.factcheck import Excluded, fact_check
from assay.protocols.synth.narrative import Written
from assay.protocols.synth.output import CheckRow, Synthesis
from assay.protocols.synth.roster import Agent
from assay.protocols.synth.timeouts import Clock, TimedJudge, Timeouts, supervise
from assay.protocols.synth.verdicts import check_verdict, evidence_origins
from assay.store.claims import ClaimRecord, Evidence
from assay.text import looks_like_instruction

PHASE1_TASK = """{agent} - MANAGER here. TASK: Research "{topic}"

1. Use YOUR search tool to research this topic thoroughly
2. Write a NARRATIVE response (3-5 paragraphs) that:
   - Provides a well-considered, useful, actionable answer
   - Synthesizes findings into coherent prose (NOT just a list of results)
   - Uses proper citations [1] for non-common facts
IMPORTANT: Response must be expository/narrative FIRST. Do NOT provide "next 10" style
listings. Synthesize and explain. No raw links in the prose."""

PHASE2_TASK = """{agent} - MANAGER here. TASK: Fact-check the other responses.
For EACH statement, verify it via web search and give its verdict (VERIFIED / FALSE /
UNVERIFIABLE) with the URL and the exact quote of the page that decides it."""

PHASE3_TASK = """{agent} - MANAGER here. TASK: Write the "Best and Verified" response.
Write a comprehensive response that captures ALL good/accurate content of every response
and synthesizes it into a coherent, authoritative answer, using only the numbered
statements below (each was VERIFIED by a fact-checker; statements marked FALSE are
already excluded)."""


@dataclass
class Member:
    agent: Agent
    worker: Worker
    judge: Judge
    session: GatherSession | None = None
    clock: Clock = field(default_factory=Clock)
    index: int = 0  # its place among the searchers: which query strategy it takes


class Panel:
    def __init__(self, context: RunContext, synth: Synthesis, timeouts: Timeouts) -> None:
        self.context = context
        self.run = context.run
        self.synth = synth
        self.timeouts = timeouts
        self.lock = asyncio.Lock()
        self.ledger = self.run.claim_ledger
        self.block_reasons: dict[str, str] = {}
        self._turns: list[asyncio.Event] = []  # Phase 1: each searcher's claims recorded

    def signal(self, name: str, agent: str | None = None, detail: str | None = None) -> None:
        self.run.events.emit(Signal(signal=name, agent=agent, detail=detail))

    def emit(self, event: Event) -> None:
        if isinstance(event, Signal) and event.signal == "[BLOCK]" and event.agent:
            self.block_reasons[event.agent] = event.detail or "blocked"
        self.run.events.emit(event)

    def _blocked(self, phase: int, agent: str) -> None:
        self.synth.blocked[(phase, agent)] = self.block_reasons.get(
            agent, f"{agent} did not report"
        )

    # Phase 1 -------------------------------------------------------------------------
    async def phase1(self, members: list[Member]) -> list[Narrative]:
        self.run.events.emit(PhaseStarted(phase="phase1", detail=f"{len(members)} searchers"))
        self._turns = [asyncio.Event() for _ in members]

        async def respond(member: Member) -> Narrative | None:
            try:
                return await supervise(
                    self._respond(member, len(members)),
                    agent=member.agent.name,
                    phase=1,
                    target=member.worker,
                    timeouts=self.timeouts,
                    emit=self.emit,
                    clock=member.clock,
                )
            finally:  # done, blocked or failed: the next searcher's claims may be recorded
                self._turns[member.index].set()

        results = await asyncio.gather(*(respond(m) for m in members))
        done = []
        for member, narrative in zip(members, results, strict=True):
            if narrative is None:
                self._blocked(1, member.agent.name)
            else:
                done.append(narrative)
        self.synth.narratives = done
        self.run.events.emit(PhaseFinished(phase="phase1", detail=f"{len(done)} responses"))
        return done

    async def _respond(self, member: Member, total: int) -> Narrative:
        assert member.session is not None
        name, topic = member.agent.name, self.synth.topic
        task = PHASE1_TASK.format(agent=name, topic=topic)
        if isinstance(member.worker, ContractWorker):  # it searches for itself
            reply = await member.worker.research(task, topic)
            member.clock.beat()
            async with member.clock.assay():  # assay reads every result it reported
                found, numbers = await fetch_results(member.session, reply)
            narrative = narrative_of(name, reply, found, numbers)
        else:
            queries = await member.worker.plan(topic, member.index, total)
            member.clock.beat()
            async with member.clock.assay():
                gathered = await gather(member.session, queries)
            narrative = Narrative(name, gathered, await member.worker.write(task, topic, gathered))
        member.clock.beat()
        async with member.clock.assay():
            await self._ledger(member, narrative)
            await self._answer_first(narrative)
        self.signal("[PHASE1_DONE]", name, f"{sum(map(len, narrative.paragraphs))} sentences")
        return narrative

    async def _ledger(self, member: Member, narrative: Narrative) -> None:
        """Every sentence becomes the searcher's own claim, citing its own sources (quoted
        ones with their quote), then is verified. A sentence another searcher also wrote
        is a claim of each: who asserted what, from which page, is never merged. The
        searchers work in parallel but record in roster order (each after the one before
        it has recorded, or ended), so a run's claim ids do not depend on who was faster."""
        if member.index > 0:
            await self._turns[member.index - 1].wait()
        async with self.lock:
            ids: list[str] = []
            for paragraph in narrative.paragraphs:
                for sentence in paragraph:
                    sentence.claim_id = self._append(narrative, sentence)
                    if sentence.claim_id is not None:
                        ids.append(sentence.claim_id)
                paragraph[:] = [s for s in paragraph if s.claim_id is not None]
            narrative.paragraphs = [p for p in narrative.paragraphs if p]
            judge = TimedJudge(member.judge, member.clock)  # its judge's calls are its own
            await VerificationEngine(self.run, judge).verify_all(only=ids)

    async def _answer_first(self, narrative: Narrative) -> None:
        """The sentence that answers the topic leads the narrative (``answer_question``
        over the narrative's verified claims; the first paragraph otherwise stays)."""
        mine = {s.claim_id for p in narrative.paragraphs for s in p if s.claim_id}
        claims = [c for c in self.ledger.claims() if c.id in mine]
        answer = await answer_question(self.synth.topic, claims)
        if not answer.claim_ids:
            return
        lead = answer.claim_ids[0]
        for paragraph in narrative.paragraphs:
            first = next((s for s in paragraph if s.claim_id == lead), None)
            if first is not None:
                paragraph.remove(first)
                paragraph.insert(0, first)
                narrative.paragraphs.remove(paragraph)
                narrative.paragraphs.insert(0, paragraph)
                return

    def _append(self, narrative: Narrative, sentence: Written) -> str | None:
        """The sentence as the searcher's claim: a verbatim one with its quote as evidence
        (none when the quote reads as an instruction to the agent)."""
        sources = narrative.gathered.sources
        cited = list(dict.fromkeys(sources[n - 1].record.id for n in sentence.cites))
        evidence = []
        why = f"{narrative.agent}'s Phase 1 response"
        if sentence.quote is not None:
            start, end = sentence.quote
            quote = sources[sentence.cites[0] - 1].text[start:end]
            if looks_like_instruction(quote):
                return None
            evidence = [Evidence(sourceId=cited[0], quote=quote, start=start, end=end)]
        else:
            why += " (written)"
        claim = ClaimRecord(
            id=self.ledger.next_id(), text=sentence.text, confidence="medium",
            sourceIds=cited, reason=why, created_by=narrative.agent, evidence=evidence,
        )  # fmt: skip
        self.ledger.append(claim)
        self.run.events.emit(
            ClaimCreated(id=claim.id, confidence="medium", source_ids=claim.source_ids)
        )
        return claim.id

    # Phase 2 -------------------------------------------------------------------------
    async def phase2(self, members: dict[str, Member], narratives: list[Narrative]) -> None:
        self.run.events.emit(PhaseStarted(phase="phase2", detail=f"{len(narratives)} responses"))
        checkers = [members[n.agent] for n in narratives]
        for checker in checkers:
            for target in narratives:
                if target.agent != checker.agent.name:
                    self.synth.checks[(checker.agent.name, target.agent)] = []
        results = await asyncio.gather(
            *(
                supervise(
                    self._check_all(c, narratives),
                    agent=c.agent.name,
                    phase=2,
                    target=c.worker,
                    timeouts=self.timeouts,
                    emit=self.emit,
                    clock=c.clock,
                )
                for c in checkers
            )
        )
        for checker, result in zip(checkers, results, strict=True):
            if result is None:
                self._blocked(2, checker.agent.name)
        rows = sum(len(r) for r in self.synth.checks.values())
        self.run.events.emit(PhaseFinished(phase="phase2", detail=f"{rows} fact-checks"))

    async def _check_all(self, checker: Member, narratives: list[Narrative]) -> bool:
        assert checker.session is not None
        name = checker.agent.name
        if isinstance(checker.worker, ContractWorker):
            return await self._own_checks(checker, checker.worker, narratives)
        # the checker's searching and fetching are assay's; its judge's calls are its own
        engine = VerificationEngine(self.run, TimedJudge(checker.judge, checker.clock))
        for target in narratives:
            if target.agent == name:
                continue
            rows = self.synth.checks[(name, target.agent)]
            for paragraph in target.paragraphs:
                for sentence in paragraph:
                    async with checker.clock.assay(), self.lock:
                        checked = await fact_check(
                            sentence.text, checker.session, engine,
                            created_by=f"{name} fact-check of {target.agent}",
                            excluded=cited_by(target, sentence),
                        )  # fmt: skip
                    self._add(rows, name, target.agent, self._row(sentence.claim_id or "", checked))
                    checker.clock.beat()
        self.signal("[PHASE2_DONE]", name, f"checked {len(narratives) - 1} responses")
        return True

    async def _own_checks(
        self, checker: Member, worker: ContractWorker, narratives: list[Narrative]
    ) -> bool:
        """A contract agent's own verdicts, each kept only when assay finds its quote."""
        assert checker.session is not None
        name = checker.agent.name
        for target in narratives:
            if target.agent == name:
                continue
            sentences = [s for p in target.paragraphs for s in p]
            listed = [Statement(n, target.agent, s.text, s.claim_id or "")
                      for n, s in enumerate(sentences, start=1)]  # fmt: skip
            reply = await worker.check(PHASE2_TASK.format(agent=name), self.synth.topic, listed)
            checker.clock.beat()
            given = {v.statement: v for v in reply.verdicts}
            rows = self.synth.checks[(name, target.agent)]
            for statement in listed:
                async with checker.clock.assay(), self.lock:
                    verdict, check_id, url, quote = await own_check(
                        self.run, checker.session, name, target.agent, statement,
                        given.get(statement.number),
                    )  # fmt: skip
                row = CheckRow(statement.claim_id, statement.text, verdict, check_id, url, quote)
                self._add(rows, name, target.agent, row)
        self.signal("[PHASE2_DONE]", name, f"checked {len(narratives) - 1} responses")
        return True

    def _add(self, rows: list[CheckRow], checker: str, author: str, row: CheckRow) -> None:
        """A row of the checker's table, and its event (the live verdict matrix)."""
        rows.append(row)
        self.run.events.emit(
            SynthChecked(checker=checker, author=author, claim_id=row.claim_id,
                         check_id=row.check_id, verdict=row.verdict)
        )  # fmt: skip

    def _row(self, claim_id: str, checked: ClaimRecord) -> CheckRow:
        """The check's row, with the verdict the ledger supports (``verdicts.py``)."""
        asserted = self.ledger.get(claim_id)
        both = [checked, *([asserted] if asserted is not None else [])]
        origins = evidence_origins(self.run.source_ledger, both)
        decided = check_verdict(checked, asserted, origins)
        url, quote = "", ""
        if decided.evidence is not None:
            record = self.run.source_ledger.get(decided.evidence.source_id)
            url = record.url if record is not None else decided.evidence.source_id
            quote = decided.evidence.quote
        return CheckRow(
            claim_id, checked.text, decided.verdict, decided.claim.id, url, quote, decided.dissent
        )


def cited_by(narrative: Narrative, sentence: Written) -> Excluded:
    """The pages a sentence rests on: never a check's evidence for it, nor any page of
    their origins. Another page the author read is a page of its own: when two searchers
    each read two independent pages that state a fact, each check finds the other page."""
    cited = [narrative.gathered.sources[n - 1] for n in dict.fromkeys(sentence.cites)]
    return Excluded([s.record for s in cited], {s.record.id: s.text for s in cited})


def warn_reassigned(panel: Panel, old: str, new: str) -> None:
    panel.run.events.emit(
        WarningEvent(
            message=f"CHIEF_AUTHOR {old} unavailable; reassigned to {new}",
            code="chief_reassigned",
        )
    )
