"""Phase 4–5 content: the report's answer, written synthesis, findings and summary.

The report opens with the short direct answer to the topic (``answers.answer_question``
over the relevant facts: a date for "when", a name for "who", yes/no first), or says that
no direct answer was found and what the closest evidence is. With a model, a
**[SYNTHESIS]** paragraph is written from the relevant facts (``report.prose``): every
sentence cites the sources of the facts it rests on, and a sentence its cited quotes do
not support is dropped (the report says how many). Without a model the findings, grouped
by sub-question, are the analysis.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from assay.answers import NO_ANSWER, Answer, answer_question
from assay.claims.passages import run_pages
from assay.protocols.deep import output
from assay.protocols.deep.detect import SearchMethod
from assay.protocols.deep.findings import Findings, Review
from assay.protocols.deep.groups import Group, clean
from assay.protocols.deep.synthesis import Citations, Synthesis, synthesize
from assay.protocols.runner import RunContext
from assay.report.prose import Prose, Statement, write_prose
from assay.report.reading import CLOSEST_EVIDENCE
from assay.store.claims import ClaimRecord
from assay.store.markers import claim_marker, neutralize

PROSE_FACTS = 10


@dataclass(frozen=True)
class Written:
    text: str
    path: Path
    summary: list[str]
    facts: int


def answer_line(answer: Answer, claims: dict[str, ClaimRecord], cites: Citations) -> str:
    """The report's first line: the answer with its citation and claim marker."""
    based = [claims[c] for c in dict.fromkeys(answer.claim_ids) if c in claims]
    # a rule that reads the facts otherwise is shown, never substituted (answers/flags.py)
    flags = "".join(f"\n\n_{neutralize(flag.line())}_" for flag in answer.flags)
    if not answer.found or not based:
        closest = "; ".join(clean(c.text) for c in based) or "none"
        why = f" ({neutralize(answer.reason)})" if answer.reason and not answer.found else ""
        return f"**Answer:** {NO_ANSWER}{why}; {CLOSEST_EVIDENCE} {closest}{flags}"
    marks = " ".join(claim_marker(c.id, c.status) for c in based)
    sources = [s for c in based for s in c.source_ids[:1]]
    return f"**Answer:** {clean(answer.text)} {cites.cite(sources)} {marks}{flags}"


def prose_section(prose: Prose, groups: Sequence[Group], cites: Citations) -> str:
    """The written [SYNTHESIS] paragraph, each sentence with its sources' [N]."""
    if not prose.written:
        return ""
    parts = []
    for sentence in prose.sentences:
        sources = [s for n in sentence.cites for s in groups[n - 1].supporting]
        parts.append(f"{clean(sentence.text)} {cites.cite(sources)}")
    note = (
        f" ({len(prose.dropped)} written sentence(s) dropped: their cited quotes do not "
        "support them.)"
        if prose.dropped
        else ""
    )
    return (
        f"**[SYNTHESIS]** _Analysis written by {prose.method.removeprefix('model:')} from "
        f"the relevant facts below; each sentence was checked against the quotes it cites._"
        f"{note}\n\n" + " ".join(parts)
    )


async def write_report(
    context: RunContext,
    method: SearchMethod,
    reviews: list[Review],
    all_findings: list[Findings],
    output_dir: Path,
) -> Written:
    """The report's text and the path it will be saved at in ``output_dir``."""
    run, topic = context.run, context.run.info.topic
    synthesis: Synthesis = synthesize(run, all_findings)
    claims = {c.id: c for g in synthesis.groups for c in g.claims}
    leads = [g.lead for g in synthesis.groups]
    answer = await answer_question(
        topic, leads, model=context.model, budget=context.budget, meter=context.meter,
        pages=run_pages(run.source_ledger) if context.model is not None else None,
    )  # fmt: skip
    cites = synthesis.citations
    opening = answer_line(answer, claims, cites)
    groups = synthesis.groups[:PROSE_FACTS]
    statements = [
        Statement(
            clean(g.lead.text),
            tuple(e.quote for c in g.claims for e in c.evidence) or (g.lead.text,),
        )
        for g in groups
    ]
    prose = await write_prose(
        topic, statements, model=context.model, budget=context.budget, meter=context.meter
    )
    findings_text = synthesis.findings
    written = prose_section(prose, groups, cites)
    if written:
        findings_text = f"{written}\n\n{findings_text}"
    gap_list = output.gaps(reviews, all_findings)
    records = {r.id: r for r in run.source_ledger.records()}
    today = dt.datetime.now().astimezone().date()
    path = output_dir / output.report_name(topic, today)
    chat_answer = clean(answer.text) if answer.found else NO_ANSWER  # no markers in chat
    lines = output.summary_lines(
        topic, synthesis, reviews, gap_list, len(cites.numbers), path, chat_answer,
        answered=answer.found and any(c in claims for c in answer.claim_ids),
    )  # fmt: skip
    summary = "\n".join(
        [opening, "", lines[0], "", "Key findings:", "",
         *[f"- {k}" for k in synthesis.key_findings], "", *lines[2:4]]
    )  # fmt: skip
    text = output.fill(
        output.template(),
        {
            "topic": topic,
            "engine_line": context.engine_line,
            "search_method": method.line().removeprefix("Search method: "),
            "run_id": run.id,
            "date": today.isoformat(),
            "summary": summary,
            "findings": findings_text,
            "directions": output.directions_section(reviews),
            "gaps": "\n".join(f"- {g}" for g in gap_list) or "- none: every query found facts",
            "bibliography": output.bibliography(cites.numbers, records),
        },
    )
    return Written(text, path, lines, synthesis.facts)
