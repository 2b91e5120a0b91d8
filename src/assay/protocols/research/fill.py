"""With a model: the pages the hop loop did not read, fetched and read by rules at no model cost.

A model run reads pages one model call at a time (hoploop.py), and each page that names a
search puts that search's results ahead of the rest, so the first search's other top
results — where, on two-page questions, the second page usually is — were never fetched:
on HotpotQA the model runs fetched about four in ten supporting pages where the run
without a model, reading the same searches' top results, fetched nearly nine in ten.
Fetching costs no model tokens; only model calls do. So once the loop ends (answered, a
budget, nothing left), the top results of each search the run made — the first search's
``FIRST_SOURCES``, each later round's ``HOP_SOURCES``, the numbers a run without a model
reads — are fetched until the run holds ``FILL_SOURCES`` sources, and the extractive
engine draws their claims, as it would without a model, judging their relevance against
the question, the searches the model named and the names the run's most relevant claims
give (hops.bridge_targets: a second hop's page shares few words with the question).
When the loop ended without searching anything the model named (the small model often says
"answered" after the first page, on a question whose second page it never saw), the bridge
rule's next round is searched, as a run without a model would search it, and its best
results are read the same way: a search and fetches, no model tokens, recorded as a
search round ``by: rule``. One round: it reaches a two-page question's second page; on the
PopQA tune half a second round only searched the answer itself (a city, then its
country), and every page it added made the answer step's prompt longer. A loop that followed the
model's own searches is left as the model led it.

What the model then reads of them is chosen by meaning, not by page: the answer step ranks
every claim and shows the model the best ones in their passages within its ~2K-token
budget (answers/model_step.py). Their claims are checked against their own quotes (a
sentence quoted word for word is its own support, no judge call) and are offered to no
cross-check by the model judge, nor are these pages offered to cross-check the model's
claims: each judge call costs a small model ~450 tokens, and the hop loop's budget is what
a question may spend. Such a claim stands as weak (one source) where a cross-check might
have made it verified. A resumed run does not know which pages were filled: it checks
them as any other.
"""

from __future__ import annotations

from assay.claims.crosscheck import corroborate_and_verify
from assay.events import ToolSearch
from assay.protocols.research.hoploop import HopLoop
from assay.protocols.research.hops import HOP_SOURCES, MAX_ROUNDS, Hop, bridge_hop, bridge_targets
from assay.protocols.research.policy import AgentState
from assay.protocols.runner import RunContext
from assay.store.claims import ClaimRecord
from assay.store.runs import Run

FIRST_SOURCES = 5
"""Results of the run's first search fetched (the sources a run without a model reads)."""
FILL_SOURCES = FIRST_SOURCES + HOP_SOURCES * (MAX_ROUNDS - 1)
"""Sources a model run holds once filled: as many as a run without a model reads."""


class FillUp:
    """The fill-up half of ``ResearchHarness`` (agent.py), which sets these attributes."""

    context: RunContext
    run: Run
    state: AgentState
    hops: HopLoop | None
    filled: set[str]
    targets: list[str]
    rounds: int

    async def _read_url(self, url: str, *, by_model: bool = True) -> None:
        raise NotImplementedError  # the harness reads

    async def _start_round(self, hop: Hop) -> list[tuple[str, str]]:
        raise NotImplementedError  # the harness searches (rounds.py)

    def _fill_urls(self) -> list[str]:
        """The unread top results of each search, the first search's first."""
        searches = [e for e in self.run.events.events() if isinstance(e, ToolSearch)]
        wanted: list[str] = []
        for number, search in enumerate(searches):
            top = FIRST_SOURCES if number == 0 else HOP_SOURCES
            wanted += [r["url"] for r in (search.results or [])[:top] if r.get("url")]
        return [url for url in dict.fromkeys(wanted) if url not in self.state.read]

    async def _fill_up(self) -> None:
        """After the hop loop: fetch what it left (see the module docstring)."""
        if self.hops is None or self.state.mode != "web":
            return  # no model, or a one-shot ask: nothing was left by a hop loop
        # a second hop's page speaks to the question only through the bridge an earlier
        # page named: its claims are judged against the bridges too (only its own: the
        # claims the model read keep their targets, and their judge calls their number)
        targets = list(self.targets)
        bridges = bridge_targets(self.state.topic, self.run.claim_ledger.claims())
        self.targets += [t for t in bridges if t not in self.targets]
        try:
            await self._read_by_rules(self._fill_urls())
            by_rule = self.hops.rounds == 0  # the model named no search (module docstring)
            if by_rule and len(self.state.read) < FILL_SOURCES:
                self.context.budget.check()
                claims = self.run.claim_ledger.claims()
                hop = bridge_hop(self.state.topic, claims, self.state.searched)
                if hop is not None:
                    found = await self._start_round(hop)
                    await self._read_by_rules([url for _, url in found[:HOP_SOURCES]])
        finally:
            self.targets[:] = targets

    async def _read_by_rules(self, urls: list[str]) -> None:
        for url in urls:
            if len(self.state.read) >= FILL_SOURCES:
                break
            self.context.budget.check()
            await self._read_url(url, by_model=False)

    async def _checked(self) -> list[ClaimRecord]:
        """Corroborate, then verify: the claims of filled pages against their own quotes
        only, the others against every source but the filled ones."""
        judge = self.context.judge
        if not self.filled:
            return await corroborate_and_verify(self.run, judge)
        claims = self.run.claim_ledger.claims()
        theirs = {c.id for c in claims if set(c.source_ids) <= self.filled}
        read = [r.id for r in self.run.source_ledger.records() if r.id not in self.filled]
        others = [c.id for c in claims if c.id not in theirs]
        checked = await corroborate_and_verify(self.run, judge, only=others, corroborators=read)
        return checked + await corroborate_and_verify(
            self.run, judge, only=theirs, corroborators=()
        )
