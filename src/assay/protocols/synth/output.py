"""The output file, in search-synth.txt's structure, exactly.

Every sentence an agent presents carries its claim marker ``(claim_007: weak)`` after its
[n] citations, so ``assay verify`` re-derives each one. URLs are written as plain text,
never as ``<url>`` or ``[t](url)`` links: the raw-results table lists search results that
were not all fetched, and ``assay verify`` accepts links only to fetched sources. Page
text (titles, blurbs, quotes, sentences) is neutralized so it can forge neither a marker
nor a link.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from assay.controls import strip_controls
from assay.protocols.synth.agents import Narrative
from assay.protocols.synth.matrix import VERDICTS, FactCheck
from assay.protocols.synth.narrative import Written
from assay.store.markers import claim_marker, neutralize

RAW_ROWS = 8


@dataclass
class CheckRow:
    """One assertion of a fact-check table."""

    claim_id: str  # the Phase 1 claim checked
    text: str
    verdict: str
    check_id: str  # the fact-check's own claim
    source: str = ""
    quote: str = ""
    dissent: int = 0  # independent pages that say otherwise (the verdict weighed them)


@dataclass
class FinalLine:
    text: str
    claim_id: str
    urls: list[str]
    """The pages that support the statement (none: no source was found that says it)."""
    asserted_by: str = ""
    more_claims: list[str] = field(default_factory=list)  # a written sentence's other claims


@dataclass
class Synthesis:
    """Everything the output file shows; filled in as the phases go."""

    topic: str
    date: str
    searchers: list[str]
    chief: str
    narratives: list[Narrative] = field(default_factory=list)
    blocked: dict[tuple[int, str], str] = field(default_factory=dict)  # (phase, agent) → why
    checks: dict[tuple[str, str], list[CheckRow]] = field(default_factory=dict)
    final: list[list[FinalLine]] = field(default_factory=list)
    unverified: list[FinalLine] = field(default_factory=list)
    ending: str = "[DONE]"
    ending_detail: str = ""
    engines: dict[str, str] = field(default_factory=dict)  # searcher → engine and search tool
    log: list[str] = field(default_factory=list)  # the MANAGER's log lines (reassignment)
    answer: FinalLine | None = None  # the short answer that opens the final response
    dropped: int = 0  # written final sentences their cited quotes did not support


def _searchers(synth: Synthesis) -> str:
    """Each searcher with the engine and search tool it ran on (every report says which
    engine and model wrote it)."""
    return ", ".join(
        f"{name} ({synth.engines[name]})" if name in synth.engines else name
        for name in synth.searchers
    )


def cell(text: str, limit: int = 300) -> str:
    flat = " ".join(neutralize(text).split()).replace("|", "\\|")
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def _marker(claim_id: str | None, statuses: Mapping[str, str]) -> str:
    if not claim_id:  # a verdict assay did not take has no fact-check claim
        return ""
    return " " + claim_marker(claim_id, statuses.get(claim_id, "unverified"))  # type: ignore[arg-type]


def _sentence(sentence: Written, statuses: Mapping[str, str]) -> str:
    cites = "".join(f"[{n}]" for n in sentence.cites)
    return f"{' '.join(neutralize(sentence.text).split())} {cites}" + _marker(
        sentence.claim_id, statuses
    )


def _phase1(synth: Synthesis, statuses: Mapping[str, str]) -> list[str]:
    out = ["## Phase 1: Initial Responses", ""]
    for narrative in synth.narratives:
        agent = narrative.agent
        out += [f"### {agent} Response", ""]
        for paragraph in narrative.paragraphs:
            out += [" ".join(_sentence(s, statuses) for s in paragraph), ""]
        gathered = narrative.gathered
        queries = "; ".join(f'"{cell(q)}"' for q in gathered.queries)
        out += [f"#### {agent} Search Terms & Raw Results", f"**Query:** {queries}"]
        out += ["| URL | Title/Blurb |", "|-----|-------------|"]
        rows = [(s.record.url, s.record.title or "", "") for s in gathered.sources]
        for result in gathered.results:
            if len(rows) >= RAW_ROWS + len(gathered.sources):
                break
            if all(result.url != r[0] for r in rows):
                rows.append((result.url, result.title, result.snippet))
        for number, (url, title, blurb) in enumerate(rows, start=1):
            label = f"[{number}] " if number <= len(gathered.sources) else ""
            text = f"{title} — {blurb}" if blurb else title
            out.append(f"| {cell(url)} | {label}{cell(text)} |")
        out.append("")
    for (phase, agent), why in synth.blocked.items():
        if phase == 1:
            out += [f"### {agent} Response", "", f"**[BLOCK]** {why}", ""]
    return out


_NOTHING_FOUND = "no quote for or against it on pages independent of the author's"


def _phase2(synth: Synthesis, statuses: Mapping[str, str]) -> list[str]:
    out = ["## Phase 2: Fact Checks", ""]
    for (checker, target), rows in synth.checks.items():
        out += [f"### {checker} Fact-Check of {target}"]
        why = synth.blocked.get((2, checker))
        out += ["| Claim | Verdict | Source |", "|-------|---------|--------|"]
        for row in rows:
            claim = cell(row.text) + _marker(row.check_id, statuses)
            # a check never reads the author's pages (fact-checking them would be circular)
            source = cell(row.source) if row.source else _NOTHING_FOUND
            if row.quote:
                source += f' — "{cell(row.quote, 160)}"'
            if row.dissent:
                source += f" ({row.dissent} other page(s) say otherwise)"
            out.append(f"| {claim} | {row.verdict} | {source} |")
        if why:  # a blocked checker's unchecked assertions are not silently cut
            out.append(f"| (the assertions not checked) | BLOCKED | {cell(why)} |")
        out.append("")
    return out


def _phase3(synth: Synthesis, statuses: Mapping[str, str]) -> list[str]:
    out = ["## Phase 3: Best and Verified Response", "", f"**Chief Author:** {synth.chief}", ""]
    raw = _raw_labels(synth)

    def written(line: FinalLine) -> str:
        cites = "".join(dict.fromkeys(f"[{raw.get(url, 'Phase 2')}]" for url in line.urls))
        text = f"{' '.join(neutralize(line.text).split())} {cites}".rstrip()
        return text + "".join(_marker(c, statuses) for c in [line.claim_id, *line.more_claims])

    if synth.answer is not None:
        out += [f"**Answer:** {written(synth.answer)}", ""]
    for paragraph in synth.final:
        out += [" ".join(written(line) for line in paragraph), ""]
    if not synth.final:
        out += ["No assertion was verified by the fact-checks.", ""]
    if synth.dropped:
        out += [f"_{synth.dropped} written sentence(s) left out: their cited quotes do not "
                "support them._", ""]  # fmt: skip
    out += [
        "### Unverified Claims",
        "",
        "The following assertions appear plausible but could not be verified",
        "from authoritative sources:",
        "",
    ]
    for line in synth.unverified:
        who = f"asserted by {cell(line.asserted_by) or 'a searcher'}"
        if line.urls:
            said = f"Reported by {', '.join(cell(u) for u in line.urls)} ({who})"
            said += ", not officially documented"
        else:
            said = f"{who[0].upper()}{who[1:]}; no source found"
        markers = "".join(_marker(c, statuses) for c in [line.claim_id, *line.more_claims])
        out.append(f"- {cell(line.text)}{markers} -- {said}")
    if not synth.unverified:
        out.append("- None.")
    return [*out, ""]


def _raw_labels(synth: Synthesis) -> dict[str, str]:
    """url → "Agent n": the row of a searcher's raw-results table that lists it (the spec
    keeps full URLs in those tables only); a URL only a fact-check read is in Phase 2."""
    labels: dict[str, str] = {}
    for narrative in synth.narratives:
        for number, source in enumerate(narrative.gathered.sources, start=1):
            labels.setdefault(source.record.url, f"{narrative.agent} {number}")
    return labels


def render(synth: Synthesis, statuses: Mapping[str, str], preflight: str = "") -> str:
    """The output file's text. Agent names, the topic and the pre-flight report come from
    the user and run through many lines here, so the control characters are removed from
    the whole text once: no line of the file can drive a terminal that shows it."""
    return strip_controls(_render(synth, statuses, preflight))


def _render(synth: Synthesis, statuses: Mapping[str, str], preflight: str) -> str:
    out = [
        f"# {cell(synth.topic)} Research Synthesis",
        "",
        "**Skill:** search-synth",
        f"**Date:** {synth.date}",
        f"**Searchers:** {_searchers(synth) or 'none'}",
        f"**Chief Author:** {synth.chief}",
        *[f"**Log:** {cell(line)}" for line in synth.log],
        "",
        "---",
        "",
    ]
    if synth.ending == "[MISMATCH]" or (synth.ending == "[BLOCK]" and not synth.narratives):
        out += [f"**{synth.ending}** {synth.ending_detail}", "", preflight]
        return "\n".join(out).rstrip() + "\n"
    out += [*_phase1(synth, statuses), "---", ""]
    if synth.ending == "[DONE]":
        out += [*_phase2(synth, statuses), "---", ""]
        out += [*_phase3(synth, statuses), "---", ""]
    out.append(f"**{synth.ending}**" + (f" {synth.ending_detail}" if synth.ending_detail else ""))
    return "\n".join(out) + "\n"


def count_verdicts(rows: Sequence[CheckRow]) -> dict[str, int]:
    return {v: sum(1 for r in rows if r.verdict == v) for v in VERDICTS}


def fact_checks(synth: Synthesis) -> list[FactCheck]:
    """The verdict matrix the report's Phase 2 shows (none: the run ended before it)."""
    if synth.ending != "[DONE]":
        return []
    return [
        FactCheck(checker, author, count_verdicts(rows), synth.blocked.get((2, checker)))
        for (checker, author), rows in synth.checks.items()
    ]
