"""The MANAGER's script: pre-flight, the three phases, the chief author, the output file.

A halt is an error that carries its signal and exit code (``MISMATCH`` 5, ``INCOMPLETE``
6, ``BLOCK`` 7); the output file and report.md are written before it is raised, so the
run directory always says what happened.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Mapping
from datetime import UTC, datetime
from pathlib import Path

from assay.answers import answer_question
from assay.claims.judge import Judge
from assay.engines.select import build_judge
from assay.errors import AssayError, BudgetExhausted, RunCancelled, RunError
from assay.events import ReportUpdated, Signal
from assay.gather.session import GatherSession
from assay.models import Model, ModelOptions, resolve_model
from assay.protocols.runner import RunContext
from assay.protocols.synth.agents import ExtractiveWorker, ModelWorker, Worker
from assay.protocols.synth.command import CommandWorker
from assay.protocols.synth.contract import ContractWorker
from assay.protocols.synth.matrix import write_panel
from assay.protocols.synth.output import FinalLine, Synthesis, fact_checks, render
from assay.protocols.synth.phases import PHASE3_TASK, Member, Panel, warn_reassigned
from assay.protocols.synth.preflight import (
    Preflight,
    agent_settings,
    check_roles,
    declared_searchers,
    finish,
    probe,
)
from assay.protocols.synth.roster import Agent, Roster
from assay.protocols.synth.timeouts import Timeouts, supervise
from assay.protocols.synth.verdicts import final_statements
from assay.reading.relevance import relevance
from assay.report.prose import Statement
from assay.store.atomic import atomic_write_text
from assay.store.runs import REPORT_FILE

MODEL_TIMEOUT = 300.0


class SynthHalted(RunError):
    """The panel stopped with a signal other than [DONE]."""

    signal = "[BLOCK]"


class Mismatch(SynthHalted):
    """The roster cannot search: fewer than two working searchers, or no MANAGER."""

    exit_code = 5
    signal = "[MISMATCH]"


class Incomplete(SynthHalted):
    """Fewer than two searchers completed Phase 1."""

    exit_code = 6
    signal = "[INCOMPLETE]"


class Blocked(SynthHalted):
    """Missing input, or no agent could do a phase's work."""

    exit_code = 7
    signal = "[BLOCK]"


class Manager:
    def __init__(
        self,
        context: RunContext,
        roster: Roster,
        output: Path,
        timeouts: Timeouts,
        models: Mapping[str, Model],
    ) -> None:
        self.context = context
        self.roster = roster
        self.output = output
        self.models = models
        topic = context.run.info.topic
        today = datetime.now(UTC).date().isoformat()
        self.synth = Synthesis(topic, today, [], "")
        self.panel = Panel(context, self.synth, timeouts)
        self.found: Preflight | None = None

    def write(self) -> str:
        statuses = {c.id: c.status for c in self.panel.ledger.claims()}
        text = render(self.synth, statuses, self.found.report() if self.found else "")
        run = self.context.run
        write_panel(run, self.synth.chief, fact_checks(self.synth))  # what readers read
        run.write_file(REPORT_FILE, text)
        run.events.emit(ReportUpdated(chars=len(text), path=REPORT_FILE))
        self.output.parent.mkdir(parents=True, exist_ok=True)
        atomic_write_text(self.output, text, fsync=run.fsync)
        return text

    def halt(self, error: type[SynthHalted], detail: str, agent: str | None = None) -> SynthHalted:
        self.synth.ending, self.synth.ending_detail = error.signal, detail
        self.context.run.events.emit(Signal(signal=error.signal, agent=agent, detail=detail))
        self.write()
        return error(f"{error.signal} {detail}")

    async def run(self) -> Synthesis:
        if self.output.is_dir():
            raise self.halt(Blocked, f"missing input: the output {self.output} is a folder")
        async with contextlib.AsyncExitStack() as stack:
            members = await self._preflight(stack)
            narratives = await self.panel.phase1(members)
            if len(narratives) < 2:
                raise self.halt(
                    Incomplete, f"{len(narratives)} of {len(members)} searchers completed Phase 1"
                )
            await self.panel.phase2({m.agent.name: m for m in members}, narratives)
        await self._phase3()
        self.write()
        return self.synth

    async def _preflight(self, stack: contextlib.AsyncExitStack) -> list[Member]:
        found = self.found = check_roles(self.roster)
        self.synth.chief = found.chief.name if found.chief else "none"
        context = self.context
        members: dict[str, Member] = {}
        answered: dict[str, str | None] = {}
        urls: dict[str, int] = {}

        async def check(agent: Agent) -> None:
            if not agent.search_tool:
                answered[agent.name] = "declares no search_tool"
                return
            try:
                session = await stack.enter_async_context(
                    GatherSession(
                        context.run,
                        agent_settings(context.settings, agent),
                        keys=context.keys,
                        budget=context.budget,
                    )
                )
            except AssayError as exc:
                answered[agent.name] = str(exc)
                return
            answered[agent.name], urls[agent.name] = await probe(session)
            worker, judge = self._worker(agent)
            members[agent.name] = Member(agent, worker, judge, session=session)
            engine = "command " + " ".join(agent.command) if agent.command else judge.name
            self.synth.engines[agent.name] = f"{engine}; search: {agent.search_tool}"

        for agent in declared_searchers(self.roster):
            await check(agent)
        finish(found, answered, urls)
        self.synth.searchers = [a.name for a in found.searchers]
        if not found.ok:
            raise self.halt(Mismatch, "; ".join(found.problems))
        chosen = [members[a.name] for a in found.searchers]
        for index, member in enumerate(chosen):
            member.index = index
        return chosen

    def _model(self, agent: Agent) -> Model | None:
        context = self.context
        try:
            model = self.models.get(agent.name)
            spec = agent.model or context.settings.model
            if model is None and spec and not agent.command:
                options = ModelOptions(
                    base_url=agent.base_url or context.settings.base_url, keys=context.keys
                )
                model = resolve_model(spec, options)
                context.adopted.append(model)  # the runner closes it when the run ends
        except AssayError as exc:
            raise self.halt(
                Blocked, f"missing input: {agent.name}'s model: {exc}", agent.name
            ) from None
        return model

    def _worker(self, agent: Agent) -> tuple[Worker, Judge]:
        context = self.context
        model = self._model(agent)
        judge = build_judge(model, budget=context.budget, meter=context.meter)
        if agent.command:
            kind = ContractWorker if agent.contract == "json" else CommandWorker
            command: Worker = kind(agent.command, name=agent.name)
            return command, judge
        if model is not None:
            worker = ModelWorker(
                model, budget=context.budget, meter=context.meter, timeout=MODEL_TIMEOUT
            )
            return worker, judge
        return ExtractiveWorker(), judge

    async def _phase3(self) -> None:
        ledger = {c.id: c for c in self.panel.ledger.claims()}
        verified, unverified = final_statements(self.synth, ledger)
        self.synth.unverified = unverified
        panel = self.panel
        verified = await self._answer(verified)
        names = [a.name for a in self.roster.agents]
        first = names.index(self.synth.chief) if self.synth.chief in names else 0
        order = names[first:] + names[:first]
        for name in order:
            if name in panel.block_reasons:
                continue
            agent = self.roster.by_name(name)
            assert agent is not None
            worker, _ = self._worker(agent)
            final = await supervise(
                self._write_final(worker, name, verified),
                agent=name,
                phase=3,
                target=worker,
                timeouts=panel.timeouts,
                emit=panel.emit,
            )
            if final is None:
                continue
            if name != self.synth.chief:
                warn_reassigned(panel, self.synth.chief, name)
                self.synth.log.append(f"CHIEF_AUTHOR {self.synth.chief} unavailable; "
                                      f"reassigned to {name}")  # fmt: skip
                self.synth.chief = name
            self.synth.final = final
            panel.signal("[DONE]", name, f"{len(verified)} verified, {len(unverified)} unverified")
            return
        raise self.halt(Blocked, "no agent is available to write the final response")

    async def _answer(self, verified: list[FinalLine]) -> list[FinalLine]:
        """The verified statements relevant to the topic, the one that answers it first;
        the short answer is kept for the top of the final response."""
        topic = self.synth.topic
        titles = {r.url: r.title or "" for r in self.context.run.source_ledger.records()}
        relevant = [
            v
            for v in verified
            if any(relevance(topic, v.text, title=titles.get(u, "")).relevant for u in v.urls)
            or relevance(topic, v.text).relevant
        ]  # as in Phase 1: a statement's source title counts
        by_id = {c.id: c for c in self.panel.ledger.claims()}
        claims = [by_id[v.claim_id] for v in relevant if v.claim_id in by_id]
        chief = self.roster.by_name(self.synth.chief)
        model = self._model(chief) if chief is not None else None
        context = self.context
        try:
            answer = await answer_question(
                topic, claims, model=model, budget=context.budget, meter=context.meter
            )
        except (BudgetExhausted, RunCancelled):
            raise
        except AssayError:  # the chief's model is down: the answer is picked without it
            answer = await answer_question(topic, claims)
        lead = next((v for v in relevant if v.claim_id in answer.claim_ids), None)
        if answer.found and lead is not None:
            if answer.text.casefold().strip(" .") != lead.text.casefold().strip(" ."):
                self.synth.answer = FinalLine(answer.text, lead.claim_id, lead.urls)
            relevant.remove(lead)
            relevant.insert(0, lead)
        return relevant

    async def _write_final(
        self, worker: Worker, name: str, verified: list[FinalLine]
    ) -> list[list[FinalLine]]:
        """Written prose (an LLM chief, each sentence grounded in what it cites), else the
        statements arranged into paragraphs."""
        task = PHASE3_TASK.format(agent=name)
        if not verified:
            await asyncio.sleep(0)
            return []
        claims = {c.id: c for c in self.panel.ledger.claims()}
        statements = [
            Statement(v.text, tuple(e.quote for e in claims[v.claim_id].evidence) or (v.text,))
            if v.claim_id in claims else Statement(v.text, (v.text,))
            for v in verified
        ]  # fmt: skip
        prose = await worker.compose(task, self.synth.topic, statements)
        if prose.written:
            lines = []
            for sentence in prose.sentences:
                cited = [verified[n - 1] for n in sentence.cites]
                urls = list(dict.fromkeys(u for c in cited for u in c.urls))
                lines.append(FinalLine(sentence.text, cited[0].claim_id, urls,
                                       more_claims=[c.claim_id for c in cited[1:]]))  # fmt: skip
            self.synth.dropped = len(prose.dropped)
            return [lines]
        arranged = await worker.arrange(task, [v.text for v in verified])
        used = {n for p in arranged for n in p}
        rest = [n for n in range(1, len(verified) + 1) if n not in used]
        paragraphs = [*arranged, rest] if rest else arranged
        return [[verified[n - 1] for n in p] for p in paragraphs]
