"""The research harness's searches: the policy's, the follow-up rounds, and the hop loop.

A search's new results join the offers with their snippets and dates. A follow-up round's
results that are not read yet go first, the best match to the round's targets first, so
the next page read is the one the round looked for.

Without a model, when the policy finishes a reading round, the bridge rule names what is
still missing (hops.py) and the round's two best results are read at once, for at most
``MAX_ROUNDS`` rounds. With a model, the hop loop (hoploop.py) starts a round after any
page read that names a search, and stops the gathering when the model says the question is
answered or a budget ends it; its end is recorded with its reason.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from assay.claims.extract import PageReading
from assay.events import GatherEnded, SearchRound
from assay.gather.reliability import reading_bonus
from assay.gather.session import GatherSession
from assay.protocols.research.hoploop import HopLoop, serves
from assay.protocols.research.hops import HOP_SOURCES, MAX_ROUNDS, Hop, bridge_hop
from assay.protocols.research.plan import Plan
from assay.protocols.research.policy import POLICY_SEARCHES, AgentState
from assay.protocols.runner import RunContext
from assay.reading.relevance import best_relevance
from assay.store.runs import Run

MAX_SEARCHES = POLICY_SEARCHES + 2 * (MAX_ROUNDS - 1)
"""Searches of a run without a model (the hop loop's pages bound a model run's)."""
_SNIPPET = 120  # characters of a result snippet the model sees (a small model, many turns)


class SearchRounds:
    """The search half of ``ResearchHarness`` (agent.py), which sets these attributes."""

    context: RunContext
    run: Run
    state: AgentState
    plan: Plan | None
    session: GatherSession | None
    targets: list[str]
    headings: dict[str, str]
    rounds: int
    hops: HopLoop | None

    async def _read_url(self, url: str, *, by_model: bool = True) -> None:
        raise NotImplementedError  # the harness reads

    async def _run_search(self, queries: list[str], *, first: bool) -> list[tuple[str, str]]:
        """Search; the new results join the offers. ``first`` (a follow-up round's search):
        its unread results, best match to its targets first, go ahead of every other offer
        and are returned — an earlier search's listing it, unread, does not keep a round's
        best result from being read (a bridge's page often sits low in the first search's
        results and first in the round's)."""
        if self.session is None:
            return []
        outcome = await self.session.search(queries)
        self.state.searches += 1
        self.state.searched.update(q.lower() for q in queries)
        offered = {url for _, url in self.state.offered}
        fresh: list[tuple[str, str]] = []
        unread: dict[str, tuple[str, str]] = {}
        for result in outcome.results:
            if result.url not in offered:
                offered.add(result.url)
                fresh.append((result.title, result.url))
                dated = f" ({result.published_date[:10]})" if result.published_date else ""
                self.state.snippets[result.url] = (
                    " ".join(result.snippet.split())[:_SNIPPET] + dated
                )
            if result.url not in self.state.read:
                unread.setdefault(result.url, (result.title, result.url))
        self.state.notes.append(f"search gave {outcome.result_count} results")
        if not first:
            self.state.offered += fresh
            return fresh
        ahead = reading_order(list(unread.values()), self.targets[-2:], self.state.snippets)
        self.state.offered = ahead + [o for o in self.state.offered if o[1] not in unread]
        return ahead

    async def _follow_up(self) -> bool:
        """After the policy finished a reading round: whether a new round started. With a
        model the hop loop has named its searches already: the gathering ends here."""
        if self.hops is not None:
            self._end_hops(
                self.hops.stop_reason()
                or f"nothing left to read or search after {self.hops.pages} pages"
            )
            return False
        if self.session is None or self.rounds >= MAX_ROUNDS:
            return False
        if self.state.searches >= MAX_SEARCHES:
            return False
        hop = bridge_hop(self.state.topic, self.run.claim_ledger.claims(), self.state.searched)
        if hop is None:
            return False
        # The round's best results are read at once: no policy turn is spent on them.
        for _, url in (await self._start_round(hop))[:HOP_SOURCES]:
            self.context.budget.check()
            await self._read_url(url)
        return True

    async def _after_read(self, reading: PageReading | None) -> None:
        """The hop loop's turn after a page read: a round for the search it names (or,
        when the reply did not validate, the bridge rule's), unless the loop must stop."""
        if self.hops is None or self.session is None:
            return
        claims = self.run.claim_ledger.claims()
        hop = self.hops.after_read(reading, claims, self.state.searched)
        self.run.events.emit(self.hops.spent())
        if hop is None or self.hops.stop_reason() is not None:
            return
        if self.state.searches >= POLICY_SEARCHES + self.hops.budget.pages:
            return
        await self._start_round(hop)

    async def _start_round(self, hop: Hop) -> list[tuple[str, str]]:
        self.rounds += 1
        if self.hops is not None:
            self.hops.rounds += 1
        served = serves(self.plan.questions if self.plan else [], self.state.topic, hop)
        round_ = SearchRound(
            round=self.rounds, missing=hop.missing, queries=list(hop.queries),
            serves=served, by=hop.by,
        )  # fmt: skip
        self.run.events.emit(round_)
        if self.plan is not None:
            self.plan.rounds.append(
                f"round {self.rounds} (for: {served}): looking for {hop.missing} ({hop.by})"
            )
            self.plan.write(self.run)
        self.targets += [t for t in hop.targets if t not in self.targets]
        self.headings.update(hop.headings())
        return await self._run_search(list(hop.queries), first=True)

    def _hops_stopped(self) -> bool:
        """Whether the hop loop must stop now (then its end is recorded)."""
        reason = self.hops.stop_reason() if self.hops is not None else None
        if reason is None:
            return False
        self._end_hops(reason)
        return True

    def _end_hops(self, reason: str) -> None:
        """Record once why the hop loop stopped: an event, and plan.md's last round line."""
        loop = self.hops
        if loop is None or loop.ended:
            return
        loop.ended = reason
        self.run.events.emit(
            GatherEnded(reason=reason, pages=loop.pages, rounds=loop.rounds, answered=loop.answered)
        )
        if self.plan is not None:
            self.plan.rounds.append(f"stopped: {reason}")
            self.plan.write(self.run)


def reading_order(
    offers: list[tuple[str, str]], targets: Sequence[str], snippets: Mapping[str, str]
) -> list[tuple[str, str]]:
    """(title, url) offers best first: relevance to the targets, plus the small weight of
    the source's kind (``gather/reliability.READING_WEIGHT``)."""

    def worth(offer: tuple[str, str]) -> float:
        title, url = offer
        return best_relevance(targets, snippets.get(url, ""), title=title).score + reading_bonus(
            url
        )

    return sorted(offers, key=lambda offer: -worth(offer))
