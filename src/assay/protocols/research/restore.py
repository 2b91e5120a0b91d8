"""What a resumed research run takes back from its event log besides the ledgers.

Why: the ledgers hold what was read, not what was offered. A run killed after a search
must read on from that search's results (``tool.search`` records them), and must not
fetch again a source it already tried and skipped (``source.skipped``); otherwise the
resumed run ends with fewer sources than the uninterrupted one, or repeats fetches.
"""

from __future__ import annotations

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
