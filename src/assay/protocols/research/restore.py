"""What a resumed research run takes back from its event log besides the ledgers.

Why: the ledgers hold what was read, not what was offered. A run killed after a search
must read on from that search's results (``tool.search`` records them), and must not
fetch again a source it already tried and skipped (``source.skipped``); otherwise the
resumed run ends with fewer sources than the uninterrupted one, or repeats fetches. The
same holds of the hop loop's budgets (``hop_spent``): a resumed run that counted its pages,
tokens and seconds from zero would spend them twice.

Every function reads typed events (``EventLog.events``): a line an older or newer version
wrote that this one cannot read is left out there, and so never stops a resume.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from assay.events import Event, GatherEnded, HopRead, SearchRound, SourceSkipped, ToolSearch


def offered_results(events: Sequence[Event]) -> list[tuple[str, str]]:
    """(title, url) of every search result recorded, first offer first, without repeats."""
    offered: dict[str, str] = {}
    for event in events:
        if not isinstance(event, ToolSearch):
            continue
        for result in event.results or []:
            url = result.get("url")
            if url:
                offered.setdefault(url, result.get("title") or url)
    return [(title, url) for url, title in offered.items()]


def skipped_urls(events: Sequence[Event]) -> list[str]:
    """URLs the run tried and skipped (a fetch that failed or the policy refused)."""
    return [event.url for event in events if isinstance(event, SourceSkipped) and event.url]


@dataclass(frozen=True)
class HopSpent:
    """What an interrupted run's hop loop had spent, and whether it had already ended."""

    pages: int = 0
    rounds: int = 0
    tokens: int = 0
    seconds: float = 0.0
    answered: bool = False
    ended: str = ""


def hop_spent(events: Sequence[Event]) -> HopSpent:
    """The last ``research.hop_read`` of the log, its follow-up rounds, and its
    ``research.gathered`` if the loop had ended."""
    read: HopRead | None = None
    rounds = 0
    ended: GatherEnded | None = None
    for event in events:
        if isinstance(event, HopRead):
            read = event
        elif isinstance(event, SearchRound):
            rounds += 1
        elif isinstance(event, GatherEnded):
            ended = event
    return HopSpent(
        pages=read.pages if read else 0,
        rounds=rounds,
        tokens=read.tokens if read else 0,
        seconds=read.seconds if read else 0.0,
        answered=ended.answered if ended else False,
        ended=ended.reason if ended else "",
    )


def last_round(events: Sequence[Event]) -> int:
    """The number of the last follow-up round recorded (1: none yet)."""
    return max((e.round for e in events if isinstance(e, SearchRound)), default=1)
