"""Synthesis: report.md per the report-structure skill, and the run's answer.

The answer is the short, direct answer to the question (assay.answers), followed by the
claims it rests on; when nothing answers, "No direct answer found" and the closest
evidence. With a model, the model reads each claim in its passage of the run's snapshots;
a rule that reads the claims otherwise is shown under the answer as a flag, and the
answer, its reason and its flags are the run's ``research.answer`` event. Findings show
only claims relevant to the question (or to the sub-question or follow-up search they
were gathered for), grouped under it: off-topic claims stay in the ledger and are
counted, never presented. With a model, a written summary comes first, each sentence
checked against the quotes it cites (prose.py). Each plan question is ticked when a
relevant claim answers it; the others are the open questions.
Everything is built by code from the claim ledger, so nothing is unattributed.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from assay.answers import NO_ANSWER, Answer, answer_question
from assay.answers.ranking import rank, usable
from assay.claims.passages import run_pages
from assay.claims.relevance import recorded_relevant
from assay.events import AnswerGiven, ReportUpdated
from assay.language import report_text
from assay.models.step import ModelStep
from assay.protocols.research.codemap import CodeMap, line_of
from assay.protocols.research.hops import side_targets
from assay.protocols.research.plan import Plan
from assay.protocols.research.prose import written_summary
from assay.protocols.research.workspace import WORKSPACE_SCHEME
from assay.protocols.runner import RunContext
from assay.report.claims_report import render_claims_report
from assay.report.reading import CLOSEST_EVIDENCE
from assay.store.claims import ClaimRecord
from assay.store.markers import claim_marker, neutralize
from assay.store.runs import REPORT_FILE, Run


def shown_answer(
    answer: Answer, claims: list[ClaimRecord], locations: Mapping[str, str] | None = None
) -> str:
    """The answer line of the report: the answer, then each claim it rests on (with its
    ``path:line`` when it was read in a workspace file)."""
    by_id = {c.id: c for c in claims}
    basis = [by_id[i] for i in answer.claim_ids if i in by_id]
    at = {i: f" `{loc}`" for i, loc in (locations or {}).items()}
    evidence = "; ".join(
        f"{neutralize(c.text)}{at.get(c.id, '')} {claim_marker(c.id, c.status)}" for c in basis
    )
    if answer.found and basis and " ".join(basis[0].text.split()) == answer.text:
        return evidence  # the answer is a claim itself (a "how" question): shown once
    if answer.found:
        shown = neutralize(answer.text)
        return f"{shown} — {report_text('resting_on')} {evidence}" if evidence else shown
    # a model's answer that failed its check leaves the reason (answers.Answer.reason)
    why = f" ({neutralize(answer.reason)})" if answer.reason else ""
    if evidence:
        return f"{NO_ANSWER}{why}; {CLOSEST_EVIDENCE} {evidence}"
    return f"{NO_ANSWER}{why}: no source read in this run answers the question."


FURTHER_EVIDENCE = "Further evidence"
"""The heading of claims gathered for a follow-up search: the reader sees what the claims
say, not the search string that found them."""


def by_question(
    topic: str,
    plan: Plan | None,
    claims: list[ClaimRecord],
    headings: Mapping[str, str] | None = None,
) -> list[tuple[str, list[ClaimRecord]]]:
    """Claims grouped under what they were judged relevant to (recorded in their ledger
    line): a plan question, the question itself (also for a claim about one side of a
    yes/no or "A or B" question, and when unrecorded), or a follow-up round under its
    heading (``Hop.heading``: "About X, which a source ties to the question"), else
    "Further evidence". A heading is in a reader's words, never the round's search string."""
    asked = plan.questions if plan else [topic]
    sides = set(side_targets(topic))
    groups: dict[str, list[ClaimRecord]] = {}
    for claim in claims:
        target = (claim.relevance.target if claim.relevance else "") or topic
        if target in sides:
            target = topic
        heading = (
            target
            if target in asked or target == topic
            else (headings or {}).get(target, FURTHER_EVIDENCE)
        )
        groups.setdefault(heading, []).append(claim)
    order = {q: n for n, q in enumerate([topic, *asked])}
    return sorted(groups.items(), key=lambda g: order.get(g[0], len(order)))


async def tick_plan(context: RunContext, plan: Plan | None, claims: list[ClaimRecord]) -> None:
    """Tick each plan question a relevant claim answers (the run's question is ticked by
    the run's answer, so it is not asked twice)."""
    if plan is None:
        return
    for question in plan.questions:
        if question in plan.answered or question.rstrip("?") == context.run.info.topic.rstrip("?"):
            continue
        found = await answer_question(question, claims)
        if found.found:
            plan.answer(question, found.claim_ids[0])
    plan.write(context.run)


def claim_locations(run: Run, claims: list[ClaimRecord]) -> dict[str, str]:
    """claim id → ``path:line`` where its quote starts, for claims read in workspace files."""
    records = {r.id: r for r in run.source_ledger.records()}
    texts: dict[str, str] = {}
    found = {}
    for claim in claims:
        evidence = claim.evidence[0] if claim.evidence else None
        record = records.get(evidence.source_id) if evidence else None
        if evidence is None or record is None or not record.url.startswith(WORKSPACE_SCHEME):
            continue
        if record.id not in texts:
            texts[record.id] = run.source_ledger.read_snapshot(record)
        line = line_of(texts[record.id], evidence.quote, evidence.start)
        found[claim.id] = f"{record.url.removeprefix(WORKSPACE_SCHEME)}:{line}"
    return found


def where_lines(code: CodeMap, names: Mapping[str, str], read: list[str]) -> list[str]:
    """Code mode's "Where in the code": each concept's defining lines in the files read."""
    lines = []
    for pattern, hit in code.definitions(read):
        shown = neutralize(hit.text).replace("`", "'")
        lines.append(f"- {names.get(pattern, pattern)}: `{hit.path}:{hit.line}` `{shown}`")
    return lines


async def write_report(
    context: RunContext,
    plan: Plan | None,
    model_answer: str,
    *,
    where: Sequence[str] = (),
    asked: str = "",
    headings: Mapping[str, str] | None = None,
) -> str:
    """Write report.md; returns the run's short answer (a model's unchecked free-text
    ``model_answer`` is not used: only an answer its claims support is given). ``where``
    is code mode's "Where in the code" section (``where_lines``), and ``asked`` the question
    in the words its claims use (code mode's, with the concepts' code spellings)."""
    del model_answer
    run = context.run
    claims = run.claim_ledger.claims()
    locations = claim_locations(run, claims)
    sources = run.source_ledger.records()
    asked = asked or run.info.topic
    answer = await answer_question(
        asked, claims, model=context.model, budget=context.budget, meter=context.meter,
        pages=run_pages(run.source_ledger) if context.model is not None else None,
    )  # fmt: skip
    given = AnswerGiven(
        text=answer.text, claim_ids=list(answer.claim_ids), method=answer.method,
        reason=answer.reason or None, flags=[f.to_json() for f in answer.flags] or None,
    )  # fmt: skip
    run.events.emit(given)
    if plan is not None and answer.found:
        for question in plan.questions:
            if question.rstrip("?") == run.info.topic.rstrip("?"):
                plan.answer(question, answer.claim_ids[0])
    await tick_plan(context, plan, claims)
    relevant = [c for c in claims if recorded_relevant(c)]
    summary: tuple[str, ...] = tuple(f"_{neutralize(flag.line())}_" for flag in answer.flags)
    if context.model is not None:
        step = ModelStep(
            context.model, budget=context.budget, meter=context.meter, max_tokens=400, retries=1
        )
        ranked = [r.claim for r in rank(asked, usable(claims))]
        written = await written_summary(step, run.info.topic, ranked)
        if written is not None:
            summary += written.lines
            if written.dropped:
                summary += (f"_{report_text('dropped', count=written.dropped)}_",)
    text = render_claims_report(
        run.info.topic,
        relevant,
        sources,
        written_by=context.engine_line,
        answer=shown_answer(answer, claims, locations),
        open_questions=[q for q in plan.questions if q not in plan.answered] if plan else [],
        off_topic=len(claims) - len(relevant),
        written=summary,
        groups=by_question(run.info.topic, plan, relevant, headings),
        locations=locations,
        where=where,
    )
    run.write_file(REPORT_FILE, text)
    run.events.emit(ReportUpdated(chars=len(text), path=REPORT_FILE))
    return answer.text
