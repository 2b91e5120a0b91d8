"""The hop loop: with a model, what each page says decides the next search (IRCoT, self-ask).

The same typed call that draws a page's claims (claims/model_extract.py ``read``) is told
what earlier pages established (``known``) and says whether the question is now answered
and, if not, a short search naming what the page points to ("Blue Lantern Press
founder"). The harness searches it at once and reads its best results next, ahead of what
earlier searches offered (rounds.py). The loop ends when the model says the question is
answered, or when one of its budgets ends it — pages read (its steps), the model's tokens,
wall time — or when nothing is left to read and nothing to search. When a reply does not
validate, the bridge rule (hops.bridge_hop) names the next hop instead.

Each round records the plan question it serves: the one its query speaks to most (the
plan's questions come from the question). However the loop ends, it ends with a reason
(``research.gathered``, and plan.md's last search-round line), and the run goes on to
verify and answer from what it read: a partial result is still a result.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from assay.answers.ranking import rank
from assay.claims.extract import PageReading
from assay.claims.relevance import recorded_relevant
from assay.events import HopRead
from assay.models.usage import UsageMeter
from assay.protocols.research.hops import Hop, bridge_hop, follow_up
from assay.protocols.research.restore import HopSpent
from assay.reading.relevance import best_relevance
from assay.store.claims import ClaimRecord

KNOWN_FACTS = 5
"""Facts from earlier pages shown with each page read (a small model's context is small)."""


@dataclass(frozen=True)
class HopBudget:
    """What one hop loop may spend before it stops with what it has.

    Sized for the local 1.5B model (about 45 prompt tokens a second): a page read costs
    about 1,000 tokens and 30 s, so six pages leave room for verifying and answering within
    the ~10,000 tokens and ~400 s a HotpotQA question is given."""

    pages: int = 6
    tokens: int = 8_000
    seconds: float = 300.0

    def __post_init__(self) -> None:
        if self.pages < 1 or self.tokens < 1 or self.seconds <= 0:
            raise ValueError("a hop budget needs at least one page, one token and some time")


class HopLoop:
    """The state of one run's hop loop: pages read, rounds, and why it stopped."""

    def __init__(
        self,
        question: str,
        budget: HopBudget,
        meter: UsageMeter | None,
        *,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.question = question
        self.budget = budget
        self.meter = meter
        self._clock = clock
        self._started = clock()
        self._tokens_at_start = self._tokens()
        self._spent_before = 0
        self._elapsed_before = 0.0
        self.pages = 0
        self.rounds = 0
        self.answered = False
        self.ended = ""

    def restore(self, spent: HopSpent) -> None:
        """Go on from what an interrupted run's loop had spent (``restore.hop_spent``)."""
        self.pages, self.rounds = spent.pages, spent.rounds
        self._spent_before, self._elapsed_before = spent.tokens, spent.seconds
        self.answered, self.ended = spent.answered, spent.ended

    def spent(self) -> HopRead:
        """What the loop has spent so far, as the event a resumed run reads back."""
        return HopRead(pages=self.pages, tokens=self._spent(), seconds=round(self._elapsed(), 3))

    def _spent(self) -> int:
        return self._spent_before + self._tokens() - self._tokens_at_start

    def _elapsed(self) -> float:
        return self._elapsed_before + self._clock() - self._started

    def _tokens(self) -> int:
        if self.meter is None:
            return 0
        totals = self.meter.totals
        return totals.input_tokens + totals.output_tokens

    def known(self, claims: Sequence[ClaimRecord]) -> list[str]:
        """What earlier pages established: the most relevant claims so far, best first."""
        relevant = [c for c in claims if recorded_relevant(c)]
        return [r.claim.text for r in rank(self.question, relevant)[:KNOWN_FACTS]]

    def after_read(
        self, reading: PageReading | None, claims: Sequence[ClaimRecord], searched: set[str]
    ) -> Hop | None:
        """The hop to search now, after one page read (``reading`` None: the model's
        reply did not validate, so the bridge rule decides)."""
        self.pages += 1
        if reading is None:
            return bridge_hop(self.question, claims, searched)
        if reading.answered:
            self.answered = True
            return None
        if reading.search:
            return follow_up(reading.search, searched, self.question)
        return None  # the model named nothing to search: what is offered is read next

    def stop_reason(self) -> str | None:
        """Why the loop must stop now, or None while it may read on."""
        if self.answered:
            return f"answered after {self._pages()}"
        if self.pages >= self.budget.pages:
            return f"step budget of {self._pages(self.budget.pages)} reached"
        spent = self._spent()
        if spent >= self.budget.tokens:
            return (
                f"token budget of {self.budget.tokens:,} model tokens reached "
                f"({spent:,} spent over {self._pages()})"
            )
        if self._elapsed() >= self.budget.seconds:
            return f"time budget of {self.budget.seconds:.0f} s reached after {self._pages()}"
        return None

    def _pages(self, count: int | None = None) -> str:
        count = self.pages if count is None else count
        return f"{count} page" + ("" if count == 1 else "s")


def serves(sub_questions: Sequence[str], question: str, hop: Hop) -> str:
    """The plan question a round's search serves: the one its first query speaks to most
    (the question itself when none does)."""
    found = best_relevance(sub_questions, hop.queries[0]) if hop.queries else None
    return found.target if found is not None and found.target else question
