"""The markdown outputs: the ``report`` and what every output shares (see ``summary.py``).

Every sentence of a synthesis is built from claims: the claim's text (page text made safe
by ``neutralize``), a ``[<URL>]`` for each source that states or supports it, and its
``(claim_001: status)`` marker, so ``assay verify`` can re-check the output. A model's
theme summary cites ``[claim_002]``; those references become the same URLs and markers.

Before rendering, every sentence is checked for the anti-patterns; one that fails is
dropped and the drop is a warning. ``antipatterns.markdown_problems`` then checks the
finished synthesis; what it finds (a whole output resting on one source included) becomes
a warning. Warnings list each skipped source with its reason, and say so when fewer than
the minimum of 3 sources were usable.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from assay.answers import NO_ANSWER
from assay.protocols.web_research.antipatterns import (
    markdown_problems,
    sentence_problems,
    split_claim_sentences,
)
from assay.protocols.web_research.results import MIN_SOURCES
from assay.protocols.web_research.synthesis import CLAIM_REF, OTHER, Synthesis
from assay.report.reading import CLOSEST_EVIDENCE
from assay.store.markers import claim_marker, neutralize

_RANK = {"verified": 0, "weak": 1, "needs_review": 2, "contradicted": 3, "unverified": 4}


@dataclass(frozen=True)
class Unit:
    """One sentence (or a model's theme summary) of a synthesis, and where it goes."""

    text: str
    claim_ids: tuple[str, ...]
    paragraph: int
    rank: int = 0


def cite(urls: Sequence[str]) -> str:
    return " ".join(f"[<{url}>]" for url in urls)


def _status(s: Synthesis, claim_id: str) -> str:
    return s.claims[claim_id].status


def claim_text(s: Synthesis, claim_id: str) -> str:
    """A claim's text with its citations and marker, as one sentence."""
    text = neutralize(" ".join(s.claims[claim_id].text.split())).rstrip(" .")
    marker = claim_marker(claim_id, s.claims[claim_id].status)
    return f"{text} {cite(s.urls_of(claim_id))} {marker}"


def rank(s: Synthesis, claim_id: str) -> int:
    return _RANK.get(_status(s, claim_id), 4)


def with_refs(s: Synthesis, summary: str) -> str:
    """A model's summary with each ``[claim_002]`` made into its URLs and marker."""

    def expand(match: re.Match[str]) -> str:
        ids = [i.strip() for i in match.group(1).split(",") if i.strip() in s.claims]
        return " ".join(f"{cite(s.urls_of(i))} {claim_marker(i, s.claims[i].status)}" for i in ids)

    return CLAIM_REF.sub(expand, neutralize(summary))


def conflict_units(s: Synthesis, paragraph: int) -> list[Unit]:
    units = []
    for conflict in s.conflicts:
        ids = tuple(i for i in conflict.claim_ids if i in s.claims)
        if ids:
            body = "; ".join(claim_text(s, i) for i in ids)
            units.append(Unit(f"Sources disagree: {body}.", ids, paragraph, 0))
    return units


def checked(s: Synthesis, units: list[Unit]) -> list[Unit]:
    """The units without anti-patterns; each one dropped is a warning."""
    kept = []
    for unit in units:
        problems = [p for t in split_claim_sentences(unit.text) for p in sentence_problems(t)]
        if problems:
            s.warnings.append(f"dropped a sentence ({problems[0].kind}): {problems[0].message}")
        else:
            kept.append(unit)
    return kept


def title_of(title: str) -> str:
    return neutralize(" ".join(title.split())).replace("[", "(").replace("]", ")")


def warning_texts(s: Synthesis, *, markdown: bool = False) -> list[str]:
    """Every warning of the output: skipped sources (each URL and why), the minimum of 3
    sources not met, then the rest in the order they arose."""
    tick = "`" if markdown else ""
    texts = [f"{tick}{k.url}{tick} skipped: {k.reason}" for k in s.skipped]
    if s.counted < MIN_SOURCES:
        texts.append(
            f"minimum not met: {s.counted} usable source(s); "
            f"web research needs at least {MIN_SOURCES} sources"
        )
    texts += [neutralize(w) if markdown else w for w in dict.fromkeys(s.warnings)]
    return texts


def warning_lines(s: Synthesis) -> list[str]:
    return [f"- WARN: {text}" for text in warning_texts(s, markdown=True)]


def render_empty(s: Synthesis, output_format: str) -> str:
    """The output when no source was usable: what was tried and why each one failed."""
    if output_format == "summary":
        lines = [f"## {s.topic} — Web Research Summary", ""]
    else:
        lines = [f"# {s.topic} — Web Research Report", ""]
        lines += [f"> Generated: {s.generated} · Sources: 0", ""]
    tried = len(s.skipped)
    lines += [
        f"_No source could be used: all {tried} candidate source(s) failed or were skipped, "
        "so there is nothing to synthesise. Give other URLs or keywords._",
        "",
    ]
    return finish(s, lines, "### Warnings" if output_format == "summary" else "## Warnings")


def footer(s: Synthesis) -> list[str]:
    statuses: list[str] = [c.status for c in s.claims.values()]
    counts = ", ".join(
        f"{statuses.count(key)} {label}"
        for key, label in (("verified", "verified"), ("weak", "single-origin"),
                           ("contradicted", "contradicted"), ("needs_review", "needing review"))
    )  # fmt: skip
    return [
        "---",
        "",
        f"_Confidence: {s.confidence} ({counts} of {len(statuses)} findings; "
        f"{s.counted} sources). Written by {s.written_by}._",
    ]


def finish(s: Synthesis, lines: list[str], warnings_heading: str) -> str:
    """Warnings and footer; any anti-pattern left in the synthesis becomes a warning."""
    body = "\n".join(lines)
    for problem in markdown_problems(body):
        shown = f"{problem.message}: {problem.sentence}" if problem.sentence else problem.message
        s.warnings.append(shown)
    tail = warning_lines(s)
    extra = [warnings_heading, "", *tail, ""] if tail else []
    return body + "\n" + "\n".join([*extra, *footer(s)]) + "\n"


def restated(s: Synthesis) -> set[str]:
    """The claims the answer line already says word for word (an answer that is a whole
    sentence): the outputs below it do not say them again."""
    if s.answer is None or not s.answer.found:
        return set()
    said = _plain(s.answer.text)
    return {c for c in s.answer.claim_ids if c in s.claims and _plain(s.claims[c].text) == said}


def _plain(text: str) -> str:
    return " ".join(text.split()).casefold().rstrip(" .")


def executive_bullets(s: Synthesis) -> list[str]:
    """3–5 claims: the best of each theme first, then the best of the rest (none the
    answer line already says)."""
    said = restated(s)
    ordered = [
        c for c in sorted(s.claims, key=lambda c: (rank(s, c), -len(s.urls_of(c))))
        if c not in said
    ]  # fmt: skip
    picked = [
        min(mine, key=ordered.index)
        for t in s.themes
        if t.name != OTHER and (mine := [c for c in t.claim_ids if c not in said])
    ][:5]
    picked += [c for c in ordered if c not in picked][: max(0, 3 - len(picked))]
    units = checked(s, [Unit(claim_text(s, c) + ".", (c,), 0) for c in picked])
    return [f"- {u.text}" for u in units]


def answer_line(s: Synthesis) -> str:
    """The short answer the outputs open with, cited and marked; "" without claims."""
    if s.answer is None:
        return ""
    ids = [c for c in s.answer.claim_ids if c in s.claims]
    refs = " ".join(f"{cite(s.urls_of(c))} {claim_marker(c, s.claims[c].status)}" for c in ids)
    if not s.answer.found:
        closest = "; ".join(claim_text(s, c) for c in ids) or "none"
        return f"**Answer:** {NO_ANSWER}; {CLOSEST_EVIDENCE} {closest}"
    text = neutralize(" ".join(s.answer.text.split())).rstrip(" .")
    return f"**Answer:** {text} {refs}".rstrip()


def render_report(s: Synthesis) -> str:
    lines = [f"# {s.topic} — Web Research Report", ""]
    lines += [f"> Generated: {s.generated} · Sources: {s.counted}", ""]
    answer = answer_line(s)
    lines += ["## Executive Summary", "", *([f"- {answer}"] if answer else [])]
    lines += [*executive_bullets(s), "", "## Detailed Findings", ""]
    for theme in s.themes:
        units = [Unit(claim_text(s, c) + ".", (c,), 0) for c in theme.claim_ids]
        if theme.summary:
            units.insert(0, Unit(with_refs(s, theme.summary), theme.claim_ids, 0))
        kept = checked(s, units)
        if not kept:
            continue
        lines += [f"### {neutralize(theme.name)}", ""]
        if theme.summary and kept[0].text == units[0].text:
            lines += [kept.pop(0).text, ""]
        lines += [*(f"- {u.text}" for u in kept), ""]
    conflicts = checked(s, conflict_units(s, 0))
    if conflicts:
        lines += ["### Conflicting information", "", *(f"- {u.text}" for u in conflicts), ""]
    lines += ["## References", ""]
    for number, f in enumerate(s.findings, start=1):
        record = f.record
        cut = " · truncated at the size cap" if f.truncated else ""
        lines.append(
            f"{number}. [{title_of(f.title)}]({f.url}) — accessed {record.accessed_at} · "
            f"{record.domain} · {record.content_type} · snapshot `{record.snapshot}`{cut}"
        )
        points = ", ".join(f"{c} ({s.claims[c].status})" for c in f.claim_ids if c in s.claims)
        lines.append(f"   - Key points: {points}")
        lines += [f"   - Quote: \u201c{neutralize(q.text)}\u201d" for q in f.quotes]
    lines.append("")
    return finish(s, lines, "## Warnings")
