"""The statuses a claim can have: the one spelling, below the store and the events that
both carry them."""

from __future__ import annotations

from typing import Literal, get_args

SettledStatus = Literal["verified", "weak", "contradicted", "needs_review"]
"""A status the verification engine gives a claim (``claim.verified`` carries one)."""
ClaimStatus = Literal[SettledStatus, "unverified"]
"""A claim's status: every claim starts unverified."""
CLAIM_STATUSES: tuple[ClaimStatus, ...] = get_args(ClaimStatus)
"""Every claim status, best first (the order of counts, tables and filters)."""
