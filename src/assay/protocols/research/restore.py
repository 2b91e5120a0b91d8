"""What a resumed research run takes back from its event log besides the ledgers.

Why: the ledgers hold what was read, not what was offered. A run killed after a search
must read on from that search's results (``tool.search`` records them), and must not
fetch again a source it already tried and skipped (``source.skipped``); otherwise the
resumed run ends with fewer sources than the uninterrupted one, or repeats fetches. The
same holds of the hop loop's budgets (``hop_spent``): a resumed run that counted its pages,
tokens and seconds from zero would spend them twice.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


def offered_results(events: list[dict[str, Any]]) -> list[tuple[str, str]]:
    """(title, url) of every search result recorded, first offer first, without repeats."""
    offered: dict[str, str] = {}
    for event in events:
        if event.get("type") != "tool.search":
            continue
        for result in (event.get("data") or {}).get("results") or []:
            url = result.get("url") if isinstance(result, dict) else None
            if isinstance(url, str) and url:
                offered.setdefault(url, str(result.get("title") or url))
    return [(title, url) for url, title in offered.items()]


def skipped_urls(events: list[dict[str, Any]]) -> list[str]:
    """URLs the run tried and skipped (a fetch that failed or the policy refused)."""
    return [
        str(event["data"]["url"])
        for event in events
        if event.get("type") == "source.skipped" and (event.get("data") or {}).get("url")
    ]


@dataclass(frozen=True)
class HopSpent:
    """What an interrupted run's hop loop had spent, and whether it had already ended."""

    pages: int = 0
    rounds: int = 0
    tokens: int = 0
    seconds: float = 0.0
    answered: bool = False
    ended: str = ""


def hop_spent(events: list[dict[str, Any]]) -> HopSpent:
    """The last ``research.hop_read`` of the log, its follow-up rounds, and its
    ``research.gathered`` if the loop had ended."""
    read: dict[str, Any] = {}
    rounds = 0
    ended: dict[str, Any] = {}
    for event in events:
        data = event.get("data") or {}
        if event.get("type") == "research.hop_read":
            read = data
        elif event.get("type") == "research.round":
            rounds += 1
        elif event.get("type") == "research.gathered":
            ended = data
    return HopSpent(
        pages=int(read.get("pages", 0)),
        rounds=rounds,
        tokens=int(read.get("tokens", 0)),
        seconds=float(read.get("seconds", 0.0)),
        answered=bool(ended.get("answered", False)),
        ended=str(ended.get("reason", "")),
    )


def last_round(events: list[dict[str, Any]]) -> int:
    """The number of the last follow-up round recorded (1: none yet)."""
    found = [
        int((e.get("data") or {}).get("round", 1))
        for e in events
        if e.get("type") == "research.round"
    ]
    return max(found, default=1)
