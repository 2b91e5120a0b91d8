"""A report made from the claim ledger alone: every finding is a claim with its status.

This is the extractive engine's report and every protocol's fallback when a run stops
early: findings grouped by status (verified first), each with its citations and its
machine-checkable marker, a source list, what stopped the run if it stopped, and the line
that says which engine and model wrote it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from assay.report.markers import claim_marker, neutralize
from assay.store.claims import ClaimRecord
from assay.store.sources import SourceRecord

_SECTIONS = (
    ("verified", "Verified findings", "Supported by at least two independent sources."),
    ("weak", "Single-source findings", "Supported by one origin only: treat with care."),
    ("contradicted", "Contradicted", "Sources disagree; both sides are quoted."),
    ("needs_review", "Needs review", "A check failed or no source clearly decides it."),
    ("unverified", "Not yet verified", "The run stopped before these were checked."),
)


def citation(source_ids: Sequence[str], numbers: Mapping[str, int]) -> str:
    return "".join(f"[{numbers[s]}]" for s in dict.fromkeys(source_ids) if s in numbers)


def render_claims_report(
    topic: str,
    claims: Sequence[ClaimRecord],
    sources: Sequence[SourceRecord],
    *,
    written_by: str,
    stopped: str | None = None,
    answer: str | None = None,  # already safe to show: callers neutralize page text in it
    open_questions: Sequence[str] = (),
    off_topic: int = 0,
) -> str:
    numbers = {s.id: n for n, s in enumerate(sources, start=1)}
    lines = [f"# {topic}", ""]
    if stopped:
        lines += [f"> **Partial report.** The run stopped early: {stopped}", ""]
    counts = {key: sum(1 for c in claims if c.status == key) for key, _, _ in _SECTIONS}
    summary = ", ".join(f"{n} {key.replace('_', ' ')}" for key, n in counts.items() if n)
    lines += ["## Executive summary", ""]
    if answer:
        lines += [f"**Answer:** {answer}", ""]
    lines.append(f"{len(claims)} claims from {len(sources)} sources")
    lines[-1] += f": {summary}." if summary else "."
    if off_topic:
        lines[-1] += (
            f" {off_topic} more claims were judged off-topic: they stay in claims.jsonl and "
            "are not presented."
        )
    for claim in [c for c in claims if c.status == "verified"][:3]:
        cited = citation(claim.source_ids, numbers)
        lines.append(f"- {neutralize(claim.text)} {cited} {claim_marker(claim.id, claim.status)}")
    lines.append("")
    lines += ["## Findings", ""]
    for key, title, explanation in _SECTIONS:
        group = [c for c in claims if c.status == key]
        if not group:
            continue
        lines += [f"### {title}", "", f"_{explanation}_", ""]
        for claim in group:
            cited = citation(claim.source_ids, numbers)
            text = neutralize(claim.text)
            lines.append(f"- {text} {cited} {claim_marker(claim.id, claim.status)}")
            for evidence in claim.evidence:
                if evidence.source_id in numbers:
                    quote = neutralize(" ".join(evidence.quote.split()))
                    number = numbers[evidence.source_id]
                    lines.append(f"  - {evidence.stance} [{number}]: \u201c{quote}\u201d")
        lines.append("")
    if open_questions:
        lines += ["## Open questions", ""]
        lines += [f"- {neutralize(q)}" for q in open_questions]
        lines.append("")
    lines += ["## Sources", ""]
    for source in sources:
        title = source.title or source.final_url
        lines.append(
            f"{numbers[source.id]}. {title} — <{source.url}> (accessed {source.accessed_at[:10]})"
        )
    lines += ["", "---", f"Written by {written_by}."]
    return "\n".join(lines) + "\n"
