"""What the synthesis may rest on: the sources inside the token window, the relevant key
points, and never a page cut at the size cap on its own.

- The window: the run keeps the newest ``run_token_cap`` (50K) tokens of source text; the
  sources read before that are evicted from the synthesis (their snapshots and claims stay
  in the run) and each one is a warning. So the cap bounds what the synthesis uses, not
  only what a model is shown.
- Relevance: a key point not relevant to the topic (``claims.relevance``) stays in the
  ledger, with its relevance recorded, and never reaches the summary, the key findings or
  a theme.
- Truncation: a key point of a page cut at the 1 MB cap is used only when another source
  (one not cut) states or supports it; a cut page left with no such key point is no source
  at all (``drop_partial``: skipped, with why), and no cut page is counted among the
  sources (the depth, the minimum of 3, the confidence): the collection read the next
  source in its place.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from assay.protocols.web_research.results import Skipped, SourceFindings
from assay.reading.relevance import relevance
from assay.reading.tokens import estimate_tokens
from assay.store.claims import ClaimRecord


def window(
    findings: Sequence[SourceFindings], texts: Mapping[str, str], cap: int
) -> tuple[list[SourceFindings], list[str]]:
    """The newest sources whose text fits in ``cap`` tokens (at least the newest one), in
    their order, and a warning for each one evicted."""
    kept: list[SourceFindings] = []
    total = 0
    for found in reversed(findings):
        tokens = estimate_tokens(texts.get(found.record.id, ""))
        if kept and total + tokens > cap:
            break
        kept.append(found)
        total += tokens
    kept.reverse()
    evicted = [f for f in findings if f not in kept]
    notes = [
        f"{f.url} not used by the synthesis: outside the newest {cap} tokens of source text"
        for f in evicted
    ]
    return kept, notes


def usable_claims(
    question: str, used: Sequence[SourceFindings], ledger: Mapping[str, ClaimRecord]
) -> tuple[dict[str, ClaimRecord], list[str]]:
    """The claims the synthesis may use (see the module docstring), and warnings."""
    whole = {f.record.id for f in used if not f.truncated}
    claims: dict[str, ClaimRecord] = {}
    notes: list[str] = []
    for found in used:
        for claim_id in found.claim_ids:
            claim = ledger.get(claim_id)
            if claim is None or claim_id in claims:
                continue
            if not _relevant(question, claim):
                continue
            supporting = {e.source_id for e in claim.evidence if e.stance == "supports"}
            if found.truncated and not ((set(claim.source_ids) | supporting) & whole):
                notes.append(
                    f"{claim_id} left out: only {found.url}, cut at the size cap, states it"
                )
                continue
            claims[claim_id] = claim
    return claims, notes


def _relevant(question: str, claim: ClaimRecord) -> bool:
    """The relevance recorded with the key point (its source's title counted), else now."""
    recorded = claim.relevance
    if recorded is not None and recorded.relevant is not None:
        return recorded.relevant
    return relevance(question, claim.text).relevant


def drop_partial(
    used: Sequence[SourceFindings], claims: Mapping[str, ClaimRecord]
) -> tuple[list[SourceFindings], list[Skipped]]:
    """The sources the synthesis shows, and the pages cut at the size cap that gave it
    nothing (a 1 MB page of junk), skipped."""
    kept: list[SourceFindings] = []
    dropped: list[Skipped] = []
    for found in used:
        if found.truncated and not any(c in claims for c in found.claim_ids):
            why = "cut at the size cap, and no whole page states any of its key points"
            dropped.append(Skipped(found.url, why))
        else:
            kept.append(found)
    return kept, dropped
