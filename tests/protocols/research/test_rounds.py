"""The harness's searches: what a follow-up round hands on to be read."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date

from assay.gather.search.base import SearchResult
from assay.protocols.research.policy import AgentState
from assay.protocols.research.rounds import SearchRounds

FIRST = ["Tarn Monthly", "Tarn Monthly (band)", "Tarn Monthly (film)", "Vell Review"]
ROUND = ["Vell Review", "Osricby", "Tarn Monthly"]


@dataclass(frozen=True)
class Outcome:
    results: list[SearchResult]

    @property
    def result_count(self) -> int:
        return len(self.results)


class ListingSession:
    """A search session whose n-th search lists the n-th titles given, in that order."""

    def __init__(self, *listings: Sequence[str]) -> None:
        self.listings = list(listings)

    async def search(self, queries: Sequence[str]) -> Outcome:
        titles = self.listings.pop(0)
        return Outcome([
            SearchResult(query=queries[0], title=t, url=url(t), snippet="", provider="lab",
                         rank=n + 1)
            for n, t in enumerate(titles)
        ])  # fmt: skip


def url(title: str) -> str:
    return "http://site.test/" + title.lower().replace(" ", "-").strip("()")


class Rounds(SearchRounds):
    def __init__(self, session: ListingSession, targets: list[str]) -> None:
        self.session = session  # type: ignore[assignment]
        self.state = AgentState("Where is the Vell Review printed?", "web", date(2026, 1, 1), 5)
        self.targets = targets


def test_a_rounds_best_result_that_an_earlier_search_listed_unread_is_handed_on() -> None:
    rounds = Rounds(ListingSession(FIRST, ROUND), ["Vell Review printer"])
    asyncio.run(rounds._run_search(["Vell Review"], first=False))
    rounds.state.read.append(url("Tarn Monthly"))  # the first search's page that was read
    found = asyncio.run(rounds._run_search(["Vell Review printer"], first=True))
    # the round's unread results, its best match first: the page the first search listed
    # fourth and left unread is read now; the page already read is not read again
    assert found[0] == ("Vell Review", url("Vell Review"))
    assert [t for t, _ in found] == ["Vell Review", "Osricby"]
    assert rounds.state.unread_offers()[:2] == found  # and they go ahead of the other offers
