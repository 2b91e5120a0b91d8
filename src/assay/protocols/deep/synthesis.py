"""Phase 4: verify the facts, then write the findings by the sub-question they answer.

Only relevant facts reach the findings (an off-topic fact stays in the ledger and the
run's findings records, never in the report's findings, key findings or summary). Facts
about one subject that overlap (most content words shared both ways) or that give one
subject's attribute different values (``claims.conflict``, each fact read with the title
of the page it came from) are merged into one entry that says whether their sources agree
or conflict; facts about different subjects are never merged, however many words they
share (two villages "in the Orsa highlands" are two facts). A fact is a **[FACT]** with
[N] citations and its claim marker; a theme's **[SYNTHESIS]** line is the engine's own
analysis, a conclusion drawn from the facts above it (conclusions.py: the comparison the
topic asks for, the sub-question's answer or what is missing, a timeline), and cites
nothing. Independence is the verification engine's: two sources of one
origin count once. A fact with ≥ 2 independent supporting origins is high confidence; any
other carries ``[unverified — single source]``. A conflict shows both sides with their
sources.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import get_args

from assay.claims.assessment import RunSources
from assay.claims.engine import extracted_from
from assay.protocols.deep.findings import Findings
from assay.protocols.deep.groups import Group, clean, group_facts
from assay.statuses import ClaimStatus
from assay.store.claims import ClaimRecord
from assay.store.markers import claim_marker
from assay.store.runs import Run

_RANK = {status: rank for rank, status in enumerate(get_args(ClaimStatus))}  # best first


class Citations:
    """[N] numbers, given to sources in the order the report first cites them."""

    def __init__(self) -> None:
        self.numbers: dict[str, int] = {}

    def cite(self, source_ids: Sequence[str]) -> str:
        marks = []
        for source_id in dict.fromkeys(source_ids):
            number = self.numbers.setdefault(source_id, len(self.numbers) + 1)
            marks.append(f"[{number}]")
        return "".join(marks)


def _entry(group: Group, cites: Citations, sources: RunSources) -> tuple[str, bool]:
    """The entry's Markdown, and whether ≥ 2 independent origins support it."""
    origins = sources.origins()
    markers = " ".join(claim_marker(c.id, c.status) for c in group.claims)
    if group.conflict:
        sides = [f'"{clean(c.text)}" {cites.cite(c.source_ids[:1])}' for c in group.claims]
        sides += [f'"{clean(q)}" {cites.cite([s])}' for s, q in group.refuting]
        unique = list(dict.fromkeys(sides))
        text = (
            "**[FACT]** Sources conflict (reported, not resolved): "
            + "; versus ".join(unique)
            + f". {markers}"
        )
        return text, False
    independent = origins.count(group.supporting) >= 2
    line = f"**[FACT]** {clean(group.lead.text)} {cites.cite(group.supporting)}"
    if len(group.claims) > 1:
        line += f" — {len(group.claims)} overlapping statements merged; their sources agree"
    if independent:
        line += f" — confidence: high ({origins.count(group.supporting)} independent sources agree)"
    else:
        level = "low" if group.lead.confidence == "low" else "medium"
        count = len(group.supporting)
        one = f" ({count} sources, one origin)" if count > 1 else ""
        line += f" [unverified — single source]{one} — confidence: {level}"
    return f"{line} {markers}", independent


@dataclass
class Synthesis:
    findings: str
    key_findings: list[str]
    key_texts: list[str]
    cited: dict[str, int]
    facts: int
    high: int
    conflicts: int
    groups: list[Group] = field(default_factory=list)  # ranked, best first
    citations: Citations = field(default_factory=lambda: Citations())


def relevant_claims(run: Run, all_findings: Sequence[Findings]) -> list[tuple[str, ClaimRecord]]:
    """(sub-question, claim) for every relevant fact, each claim once: under the first
    direction it establishes something for (``Fact.established``: a date of one side read
    by another side's worker goes to its own side), else its first direction.

    A claim left with no quote at all is no [FACT]: its own page, judged, did not state it
    (the local model's "Vell ferryman facts" was its search query, not a sentence)."""
    ledger = {c.id: c for c in run.claim_ledger.claims() if c.evidence}
    home: dict[str, str] = {}
    for established in (True, False):  # a fact goes where it establishes something
        for findings in all_findings:
            for fact in findings.relevant_facts():
                if fact.claim_id in ledger and (fact.established or not established):
                    home.setdefault(fact.claim_id, findings.direction)
    order = {f.direction: n for n, f in enumerate(all_findings)}
    ids = sorted(home, key=lambda i: (order[home[i]], i))
    return [(home[i], ledger[i]) for i in ids]


def synthesize(run: Run, all_findings: Sequence[Findings]) -> Synthesis:
    """The ## Findings body from the relevant facts and the verified ledger, one section per
    sub-question (direction)."""
    chosen = relevant_claims(run, all_findings)
    sources = RunSources.load(run.source_ledger)
    cites = Citations()
    lines: list[str] = []
    everything: list[tuple[Group, str, bool]] = []
    from assay.protocols.deep import conclusions  # it reads this module's groups

    titles = {c.id: extracted_from(c, sources.records) for _, c in chosen}
    for question in dict.fromkeys(q for q, _ in chosen):
        facts = [c for q, c in chosen if q == question]
        groups = group_facts(facts, titles, {i: r.title or "" for i, r in sources.records.items()})
        ranked = sorted(groups, key=lambda g: (_RANK[g.lead.status], -len(g.supporting)))
        entries = [(g, *_entry(g, cites, sources)) for g in ranked]
        everything += entries
        lines += [f"### {clean(question)}", ""]
        lines += [f"- {text}" for _, text, _ in entries]
        confirmed = [group for group, _, independent in entries if independent]
        said = conclusions.section(question, ranked, titles, confirmed)
        lines += ["", f"**[SYNTHESIS]** {clean(said)}", ""] if said else [""]
    if not lines:
        lines = ["No accepted source stated a fact relevant to this topic.", ""]
    decided = conclusions.comparison(run.info.topic, [g for g, _, _ in everything], titles)
    if decided:
        lines = [f"**[SYNTHESIS]** {clean(decided)}", "", *lines]
    best = sorted(
        everything, key=lambda e: (not e[2], _RANK[e[0].lead.status], -len(e[0].supporting))
    )
    return Synthesis(
        findings="\n".join(lines).rstrip(),
        key_findings=[text.removeprefix("**[FACT]** ") for _, text, _ in best[:3]],
        key_texts=[clean(g.lead.text) for g, _, _ in best[:3]],
        cited=cites.numbers,
        facts=len(everything),
        high=sum(1 for _, _, independent in everything if independent),
        conflicts=sum(1 for group, _, _ in everything if group.conflict),
        groups=[g for g, _, _ in best],
        citations=cites,
    )
