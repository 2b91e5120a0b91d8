"""The machine-checkable parts of a report.

Every claim a report presents carries a marker ``(claim_001: verified)`` right after its
citations; ``assay verify`` reads the markers back and re-derives each status. Every URL a
report links to must be a source the run fetched.
"""

from __future__ import annotations

import re

from assay.statuses import ClaimStatus

_MARKER = re.compile(r"\((claim_\d+): (verified|weak|contradicted|needs_review|unverified)\)")
# A citation is a link: ``<url>`` or ``[text](url)``. URLs inside quoted page text are data.
_LINK = re.compile(
    r"""<((?:https?|index|workspace)://[^\s<>]+)>|\]\(((?:https?|index|workspace)://[^\s()]+)\)"""
)


def claim_marker(claim_id: str, status: ClaimStatus) -> str:
    return f"({claim_id}: {status})"


def claim_markers(report: str) -> list[tuple[str, str]]:
    """(claim id, status the report presents) for every marker, in order."""
    return [(m.group(1), m.group(2)) for m in _MARKER.finditer(report)]


def cited_urls(report: str) -> list[str]:
    """Every http(s), index:// or workspace:// URL the report links to (``<url>``, ``[t](url)``)."""
    return [m.group(1) or m.group(2) for m in _LINK.finditer(report)]


def neutralize(page_text: str) -> str:
    """Page text made safe to show in a report: it can neither forge a claim marker nor
    add a link that ``assay verify`` would take for a citation."""
    text = _MARKER.sub(lambda m: f"({m.group(1).replace('_', '-')}: {m.group(2)})", page_text)
    return text.replace("<", "‹").replace(">", "›").replace("](", "] (")
