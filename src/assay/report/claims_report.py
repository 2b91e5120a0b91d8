"""A report made from the claim ledger alone: every finding is a claim with its status.

This is the extractive engine's report and every protocol's fallback when a run stops
early: findings grouped by status (verified first), each with its citations and its
machine-checkable marker, a source list, what stopped the run if it stopped, and the line
that says which engine and model wrote it. Its fixed text is in the run's language
(``assay.language.report_text``); claims and quotes are as their pages say them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from assay.language import report_text
from assay.report.bibliography import reference
from assay.statuses import CLAIM_STATUSES
from assay.store.claims import ClaimRecord
from assay.store.markers import claim_marker, neutralize
from assay.store.sources import SourceRecord

"""The report's sections, in order; each one's title and note are in the run's language
(``assay.language``: ``verified`` and ``verified_note``…), as all the report's fixed text."""
_ORDER = {key: n for n, key in enumerate(CLAIM_STATUSES)}


def _finding(
    claim: ClaimRecord, numbers: Mapping[str, int], locations: Mapping[str, str]
) -> list[str]:
    """A claim with its citations (and, from a workspace file, its ``path:line``) and
    marker, then each quote it rests on."""
    cited = citation(claim.source_ids, numbers)
    if claim.id in locations:
        cited += f" `{locations[claim.id]}`"
    lines = [f"- {neutralize(claim.text)} {cited} {claim_marker(claim.id, claim.status)}"]
    for evidence in claim.evidence:
        if evidence.source_id in numbers:
            quote = neutralize(" ".join(evidence.quote.split()))
            lines.append(
                f"  - {evidence.stance} [{numbers[evidence.source_id]}]: \u201c{quote}\u201d"
            )
    return lines


def _presented(claim: ClaimRecord) -> bool:
    """Whether a claim is a finding: a checked claim no sentence of its sources states (a
    model's claim whose quote was not found) is not: it would sit under a question with a
    citation that does not hold. One not checked yet is shown as such."""
    return bool(claim.evidence) or claim.status == "unverified"


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
    written: Sequence[str] = (),  # written sentences, already safe and with their markers
    groups: Sequence[tuple[str, Sequence[ClaimRecord]]] = (),
    locations: Mapping[str, str] | None = None,
    where: Sequence[str] = (),  # code mode's definition lines, already safe
) -> str:
    """The report; with ``groups`` the findings are grouped under those headings (the plan
    question each claim answers) instead of by status; ``locations`` (claim id →
    ``path:line``) and ``where`` are code mode's (protocols/research/codemap.py)."""
    numbers = {s.id: n for n, s in enumerate(sources, start=1)}
    lines = [f"# {topic}", ""]
    if stopped:
        lines += [f"> {report_text('partial')} {stopped}", ""]
    counts = {key: sum(1 for c in claims if c.status == key) for key in CLAIM_STATUSES}
    summary = ", ".join(f"{n} {report_text(f'status_{key}')}" for key, n in counts.items() if n)
    lines += [f"## {report_text('executive_summary')}", ""]
    if answer:
        lines += [f"**{report_text('answer')}** {answer}", ""]
    if written:
        lines += [*written, ""]
    lines.append(report_text("claims_from", claims=len(claims), sources=len(sources)))
    lines[-1] += f": {summary}." if summary else "."
    if off_topic:
        lines[-1] += " " + report_text("off_topic", count=off_topic)
    unquoted = sum(1 for c in claims if not _presented(c))
    if unquoted:
        lines[-1] += " " + report_text("unquoted", count=unquoted)
    for claim in [c for c in claims if c.status == "verified"][:3]:
        cited = citation(claim.source_ids, numbers)
        lines.append(f"- {neutralize(claim.text)} {cited} {claim_marker(claim.id, claim.status)}")
    lines.append("")
    lines += [f"## {report_text('findings')}", ""]
    sections = [(neutralize(h), "", [c for c in g if _presented(c)]) for h, g in groups] or [
        (
            report_text(key),
            f"_{report_text(f'{key}_note')}_",
            [c for c in claims if c.status == key and _presented(c)],
        )
        for key in CLAIM_STATUSES
    ]
    for title, explanation, group in sections:
        if not group:
            continue
        lines += [f"### {title}", ""] + ([explanation, ""] if explanation else [])
        for claim in sorted(group, key=lambda c: _ORDER[c.status]) if groups else group:
            lines += _finding(claim, numbers, locations or {})
        lines.append("")
    if where:
        lines += ["## Where in the code", "", *where, ""]
    if open_questions:
        lines += [f"## {report_text('open_questions')}", ""]
        lines += [f"- {neutralize(q)}" for q in open_questions]
        lines.append("")
    lines += [f"## {report_text('sources')}", ""]
    for source in sources:
        title = source.title or source.final_url
        kind = (source.model_extra or {}).get("reliability")  # gather/reliability.py
        shown = f"{report_text('source_kind', kind=kind)} · " if kind and kind != "unknown" else ""
        cited = reference(source)  # a paper's authors, year, venue and DOI
        lines.append(
            f"{numbers[source.id]}. {title} — {cited + ' — ' if cited else ''}<{source.url}> "
            f"({shown}{report_text('accessed')} {source.accessed_at[:10]})"
        )
    lines += ["", "---", report_text("written_by", engine=written_by)]
    return "\n".join(lines) + "\n"
