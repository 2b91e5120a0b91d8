"""The research agent's harness: plan → gather → extract claims → verify → synthesize.

The policy (a model, or the extractive engine) chooses each action; this harness runs
it, records it, and holds the rules a policy cannot break:

- bootstrap (bootstrap.py): the skills are read before the first search; a policy that
  searches first is corrected (the harness reads them, ``tool.read_skill`` with
  ``corrected``, and a ``warning``), and a missing plan is written for it the same way;
- claims are extracted and appended right after each source is read, never batched;
- every source and claim gets its relevance to the question (or to the follow-up search
  it was gathered for) in its ledger line, and a claim's text names its page's subject;
- without a model, when the policy finishes a reading round, the harness asks what is
  still missing and searches for it (hops.py), for at most ``MAX_ROUNDS`` rounds in all;
  with one, every page read may name the next search and the hop loop stops when the
  model says the question is answered or its budgets end it (hoploop.py, rounds.py),
  and then the top results it left are fetched and read by rules, at no model cost (fill.py);
- the loop ends on the first turn without a tool call (``finish``) that leaves nothing to
  look for, or after ``max_steps`` turns, and always within the run's budgets;
- a run resumed from its files skips what its files say is done.
"""

from __future__ import annotations

import contextlib
from collections import Counter
from dataclasses import replace
from datetime import UTC, datetime

from assay.claims.assessment import RunSources
from assay.claims.extract import ExtractiveExtractor, read_else_extract, record_claims
from assay.claims.standalone import page_subject
from assay.events import (
    PhaseFinished,
    PhaseStarted,
    ToolReadSkill,
    ToolSearch,
    WarningEvent,
)
from assay.gather.session import GatherSession
from assay.models.fallback import Step
from assay.protocols.research.actions import (
    Action,
    Finish,
    GrepWorkspace,
    ListWorkspaceDir,
    ReadFile,
    ReadSkill,
    ReadUrl,
    RequestFullResearch,
    Todo,
    WebSearch,
    WritePlan,
)
from assay.protocols.research.bootstrap import BootstrapRules
from assay.protocols.research.codeturns import WorkspaceTurns
from assay.protocols.research.fill import FillUp
from assay.protocols.research.hoploop import HopBudget, HopLoop
from assay.protocols.research.hops import side_targets
from assay.protocols.research.plan import Plan
from assay.protocols.research.policy import (
    POLICY_SEARCHES,
    AgentState,
    ExtractivePolicy,
    Mode,
    Policy,
)
from assay.protocols.research.restore import hop_spent, last_round, offered_results, skipped_urls
from assay.protocols.research.rounds import SearchRounds
from assay.protocols.research.synthesis import write_report
from assay.protocols.research.workspace import Workspace
from assay.protocols.runner import RunContext
from assay.reading.relevance import Relevance, best_relevance
from assay.store.claims import ClaimRecord, RecordedRelevance
from assay.text import split_sentences

MAX_STEPS = 30
"""Searches the policy may ask for; follow-up rounds search on top of these."""
MAX_POLICY_FAILURES = 3
LEAD_CHARS = 300
"""A source's relevance is judged on its title and its lead: the best of its first
sentences, up to this many characters (at least one). Relevance is fitted on sentences, and
the page's sentences are embedded for its claims anyway; a 1,000-character lead read as
none of them and cost the embedder a quarter of its time."""


class Escalate(Exception):
    """The one-shot agent asked for full research (``research._run`` hands the run over
    to a full harness)."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class ResearchHarness(SearchRounds, WorkspaceTurns, BootstrapRules, FillUp):
    def __init__(
        self,
        context: RunContext,
        policy: Policy,
        *,
        mode: Mode,
        target_sources: int = 5,
        workspace: Workspace | None = None,
        max_steps: int = MAX_STEPS,
    ) -> None:
        """With a model, the hop loop's budget is the settings' ``hop_*`` (an ask run
        reads at most one page more than its sources)."""
        self.context = context
        self.run = context.run
        self.policy = policy
        self.mode = mode
        self.workspace = workspace
        self.max_steps = max_steps
        self.state = AgentState(
            topic=self.run.info.topic,
            mode=mode,
            today=datetime.now(UTC).date(),
            target_sources=target_sources,
        )
        self.plan: Plan | None = None
        self.answer = ""
        self.session: GatherSession | None = None
        self.targets: list[str] = [self.state.topic, *side_targets(self.state.topic)]
        self.headings: dict[str, str] = {}  # a follow-up target → its findings' heading
        self.rounds = 1
        self.hops: HopLoop | None = None
        self.filled: set[str] = set()  # sources fetched after the hop loop, read by rules
        if context.model is not None and mode != "workspace":
            settings = context.settings
            pages = settings.hop_pages
            pages = pages if mode == "web" else min(pages, target_sources + 1)
            budget = HopBudget(pages, settings.hop_tokens, settings.hop_seconds)
            self.hops = HopLoop(self.state.topic, budget, context.meter)
            self.state.target_sources = pages  # the code policy reads on; the loop stops it
        self._start_code(workspace)
        self._failures = 0
        self._fallback = ExtractivePolicy()
        self._restore()

    def _restore(self) -> None:
        """What the run's files say is done already (a fresh run has nothing)."""
        events = self.run.events.events()
        self.state.skills_read = {e.name for e in events if isinstance(e, ToolReadSkill)}
        self.state.searches = sum(1 for e in events if isinstance(e, ToolSearch))
        self.state.offered = offered_results(events)
        self.rounds = last_round(events)
        if self.hops is not None:
            self.hops.restore(hop_spent(events))
        self.plan = Plan.load(self.run.dir)
        self.state.plan = list(self.plan.questions) if self.plan else []
        read = [r.url.removeprefix("workspace://") for r in self.run.source_ledger.records()]
        self.state.read = read + [url for url in skipped_urls(events) if url not in read]
        self.state.claims = len(self.run.claim_ledger.claims())

    async def run_loop(self) -> str:
        async with contextlib.AsyncExitStack() as stack:
            if self.mode != "workspace":
                self.session = await stack.enter_async_context(
                    GatherSession(
                        self.run,
                        self.context.settings,
                        keys=self.context.keys,
                        budget=self.context.budget,
                    )
                )
            if "gather" not in self._done():
                await self._turns()
        await self._verify()
        await self._synthesize()
        return self.answer

    def _done(self) -> set[str]:
        return self.plan.done if self.plan else set()

    async def _turns(self) -> None:
        self.run.events.emit(PhaseStarted(phase="gather"))
        for step in range(self.max_steps):
            self.context.budget.check()
            if self._hops_stopped():
                break
            self.state.steps_left = self.max_steps - step
            action = await self._decide()
            if isinstance(action, Finish):
                self.answer = action.answer.strip()
                if not await self._follow_up():
                    break
                continue
            await self._act(action)
        else:
            self._warn(f"step budget of {self.max_steps} turns reached", "max_steps")
            self._end_hops(f"step budget of {self.max_steps} turns reached")
        await self._fill_up()
        self.run.events.emit(
            PhaseFinished(phase="gather", detail=f"{len(self.state.read)} sources")
        )
        self._tick("gather")
        self._tick("extract claims")

    async def _decide(self) -> Action:
        """The policy's action, unless the model gave none valid: then the extractive policy
        decides this turn (a broken model never stalls a run), and after
        ``MAX_POLICY_FAILURES`` in a row it decides the rest of the run. The model is asked
        only to fill slots that make progress (``policy.model_slot``), so it cannot repeat
        work already done."""
        if self._failures >= MAX_POLICY_FAILURES:
            return await self._fallback.next_action(self.state)
        decided = await Step[Action](
            "research.policy", lambda: self.policy.next_action(self.state),
            lambda: self._fallback.next_action(self.state), self.policy.name,
        ).run()  # fmt: skip
        self._failures = 0 if decided.failure is None else self._failures + 1
        if decided.failure is not None:
            self._warn(
                f"{self.policy.name} gave no valid action ({decided.failure.reason[:160]}); "
                "the extractive policy decides this turn",
                "policy_fallback",
            )
        return decided.value

    async def _act(self, action: Action) -> None:
        if isinstance(action, ReadSkill):
            self._read_skill(action.name, corrected=False)
        elif isinstance(action, WritePlan):
            self._write_plan(self._on_topic(action.questions), action.approach)
        elif isinstance(action, RequestFullResearch):
            raise Escalate(action.reason)
        else:
            self._bootstrap()
            await self._gather(action)

    async def _gather(self, action: Action) -> None:
        if isinstance(action, WebSearch):
            await self._search(action)
        elif isinstance(action, ReadUrl):
            await self._read_url(action.url)
        elif isinstance(action, ReadFile):
            await self._read_file(action.path)
        elif isinstance(action, ListWorkspaceDir | GrepWorkspace | Todo):
            self._workspace_action(action)

    async def _search(self, action: WebSearch) -> None:
        if self.session is None:
            return
        if self.state.searches >= POLICY_SEARCHES:
            self.state.notes.append("search limit reached: read what was offered, or finish")
            return
        await self._run_search(action.queries, first=False)

    async def _read_url(self, url: str, *, by_model: bool = True) -> None:
        """Fetch ``url`` and draw its claims: by the run's extractor and, with a model, as
        one step of the hop loop; ``by_model`` False: by the extractive engine, at no
        model cost (a page the loop never read, rounds.py ``_fill_up``)."""
        if self.session is None or url in self.state.read:
            return
        read = await self.session.read(url)
        self.state.read.append(url)
        if read is None:
            return
        if not by_model:
            self.filled.add(read.record.id)
        await self._extract(read.record.id, read.text, read.record.title, by_model=by_model)

    def _relevance(self, text: str, title: str | None) -> Relevance:
        found = best_relevance(self.targets, text, title=page_subject(title))
        return self._code_relevance(text, found)

    async def _extract(
        self, source_id: str, text: str, title: str | None, *, by_model: bool = True
    ) -> None:
        """createClaim right after the source is read: each claim appended at once, with
        its relevance; the source's own relevance (title and lead) goes in its line."""
        lead = max((self._relevance(s, title) for s in _lead(text)), key=lambda r: r.score)
        self.run.source_ledger.annotate(source_id, relevance=lead.to_json())
        hops = self.hops if by_model else None
        known = hops.known(self.run.claim_ledger.claims()) if hops else None
        extractor = self.context.extractor if by_model else ExtractiveExtractor()
        drawn = await read_else_extract(
            extractor, self.question, text,
            lambda sentence: self._relevance(sentence, title).relevant,
            title=title or "", known=known, max_claims=self._claims_per_page,
        )  # fmt: skip
        reading = drawn.value if drawn.failure is None else None
        drafts, created_by = drawn.value.drafts, drawn.value.created_by
        if drawn.failure is not None:
            self._warn(f"claims of {source_id} by the extractive engine: the model failed "
                       f"({drawn.failure.error})", "extractor_fallback")  # fmt: skip
        elif self.workspace is not None:  # a docstring's sentence, on one line
            drafts = [replace(d, text=" ".join(d.text.split())) for d in drafts]
        recorded = record_claims(
            self.run,
            source_id,
            drafts,
            created_by=created_by,
            reason=f"stated by {source_id} about the question",
            subject=page_subject(title),
            relevance_of=lambda claim: self._relevance(claim, title),
        )
        self.state.claims += len(recorded)
        if by_model:
            await self._after_read(reading)

    async def _verify(self) -> None:
        if "verify" in self._done():
            return
        self.run.events.emit(PhaseStarted(phase="verify"))
        # Rescored relevance is staged: the verification pass writes it with the statuses.
        sources = RunSources.load(self.run.source_ledger)
        ledger = self.run.claim_ledger
        ledger.stage(self._rescored(claim, sources) for claim in ledger.claims())
        checked = await self._checked()
        counts = Counter(c.status for c in checked)
        detail = (
            f"{len(checked)} claims checked; {counts['verified']} verified, {counts['weak']} weak"
        )
        self.run.events.emit(PhaseFinished(phase="verify", detail=detail))
        self._tick("verify")

    def _rescored(self, claim: ClaimRecord, sources: RunSources) -> ClaimRecord:
        """A claim read before a follow-up search is judged against its targets too: its
        recorded relevance only ever rises."""
        if claim.relevance is None:
            return claim
        record = sources.records.get(claim.source_ids[0]) if claim.source_ids else None
        found = self._relevance(claim.text, record.title if record else None)
        if found.score <= claim.relevance.score:
            return claim
        rescored = RecordedRelevance.model_validate(found.to_json())
        return claim.model_copy(update={"relevance": rescored})

    async def _synthesize(self) -> None:
        self.run.events.emit(PhaseStarted(phase="synthesize"))
        self.answer = await write_report(
            self.context, self.plan, self.answer, where=self._where(), asked=self.question,
            headings=self.headings,
        )  # fmt: skip
        self.run.events.emit(PhaseFinished(phase="synthesize"))
        self._tick("synthesize")

    def _tick(self, phase: str) -> None:
        if self.plan is not None:
            self.plan.tick(self.run, phase)

    def _warn(self, message: str, code: str) -> None:
        self.run.events.emit(WarningEvent(message=message, code=code))


def _lead(text: str) -> list[str]:
    """The text's first sentences, up to ``LEAD_CHARS`` characters (at least one)."""
    lead: list[str] = []
    for sentence in split_sentences(text[: 4 * LEAD_CHARS]):
        if lead and sum(map(len, lead)) + len(sentence.text) >= LEAD_CHARS:
            break
        lead.append(sentence.text)
    return lead or [text[:LEAD_CHARS]]
