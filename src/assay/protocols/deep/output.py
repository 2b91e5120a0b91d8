"""Phase 5: the report from the shipped template, its integrity check, and the summary.

The report is saved as ``research_<topic-slug>_<YYYYMMDD>.md``; ``check_integrity`` must
pass before anything is cleaned up: the file exists and is not empty, it has the
## Findings, ## Gaps and ## Bibliography sections, its bibliography has one entry per [N]
cited in the body, and no template placeholder is left.
"""

from __future__ import annotations

import datetime as dt
import re
from importlib.resources import files
from pathlib import Path

from assay.errors import IntegrityError
from assay.protocols.deep.findings import Findings, Review
from assay.protocols.deep.groups import clean
from assay.protocols.deep.scoring import MIN_AUTHORITY_CHECK, authority, covered_angles
from assay.protocols.deep.synthesis import Synthesis
from assay.redact import redact
from assay.report.bibliography import reference
from assay.store.paths import slugify
from assay.store.sources import SourceRecord

SECTIONS = ("## Findings", "## Gaps", "## Bibliography")
_SLOT = re.compile(r"\{\{(\w+)\}\}")
_SPEC_PLACEHOLDERS = ("[topic]", "[direction name]", "[url]", "[file path]", "[2–3 sentences]")
_CITATION = re.compile(r"\[(\d+)\]")
_ENTRY = re.compile(r"^\[(\d+)\] ", re.MULTILINE)


def template() -> str:
    return files("assay.protocols.deep").joinpath("templates/report_template.md").read_text("utf-8")


def fill(text: str, values: dict[str, str]) -> str:
    """One pass over the template's {{slots}}: filled text is never re-read."""
    return _SLOT.sub(lambda m: values.get(m.group(1), m.group(0)), text)


def report_name(topic: str, today: dt.date) -> str:
    return f"research_{slugify(topic, max_length=60, fallback='topic')}_{today:%Y%m%d}.md"


_ACCEPTED_SOURCES = (
    f"(accepted_sources needs two independent sources of authority ≥ {MIN_AUTHORITY_CHECK}/5: "
    "official, scholarly, reference or news; a host of no known kind counts 2 unless another "
    "origin confirms its fact.)"
)


def directions_section(reviews: list[Review]) -> str:
    lines: list[str] = []
    for r in reviews:
        quoted = "; ".join(f'"{clean(q)}"' for q in r.queries)
        if r.crashed:
            lines += [f"### Direction {r.number}: {r.name} — worker crashed", ""]
            lines += [f"The worker failed ({clean(r.crashed)}); the other directions went on."]
        elif r.insufficient:
            lines += [
                f"### Direction {r.number}: {r.name} [insufficient data — score: {r.score:.1f}]"
            ]
            lines += ["", f"Queries attempted: {quoted}"]
        else:
            lines += [f"### Direction {r.number}: {r.name} — score {r.score or 0:.1f}", ""]
            lines.append(f"Queries: {quoted}")
        if r.escalated and not r.crashed:
            lines.append(
                f"Escalated (first score {r.first_score or 0:.1f}); retry queries: "
                + "; ".join(f'"{clean(q)}"' for q in r.retry_queries)
            )
        if r.parts:
            lines.append(
                "Score inputs (0–10): " + ", ".join(f"{k} {v:.1f}" for k, v in r.parts.items())
            )
        if r.checks:
            lines.append(
                "Checks: "
                + ", ".join(f"{k} {'pass' if v else 'FAIL'}" for k, v in r.checks.items())
            )
        if r.checks.get("accepted_sources") is False:  # a source may be acceptable (≥ 2)
            lines.append(_ACCEPTED_SOURCES)  # and still not count for the check (≥ 3)
        lines.append("")
    return "\n".join(lines).rstrip()


def gaps(reviews: list[Review], all_findings: list[Findings]) -> list[str]:
    found: list[str] = []
    for r in reviews:
        if r.crashed:
            found.append(f"Direction {r.number} ({r.name}): not researched, the worker crashed")
        elif r.insufficient:
            found.append(
                f"Direction {r.number} ({r.name}): insufficient data (score {r.score or 0:.1f}) "
                f"after searching {len(r.queries)} queries"
            )
    for findings in all_findings:
        answered = {f.angle for f in findings.relevant_facts() if f.answers_angle}
        covered = set(covered_angles(findings)) | answered
        for query in findings.queries:
            if query not in covered:
                found.append(
                    f'"{clean(query)}" (direction {findings.number}): searched; no accepted '
                    "source gave a relevant fact"
                )
    return list(dict.fromkeys(found))


def bibliography(cited: dict[str, int], records: dict[str, SourceRecord]) -> str:
    lines = []
    for source_id, number in sorted(cited.items(), key=lambda item: item[1]):
        record = records[source_id]
        title = clean(record.title or record.url)
        paper = reference(record)  # a paper's authors, year, venue and DOI
        lines.append(
            f"[{number}] {title} — {paper + ' — ' if paper else ''}<{record.url}> — snapshot "
            f"{record.snapshot}, accessed "
            f"{record.accessed_at[:10]}, authority {authority(record.url)}/5"
        )
    return "\n".join(lines) or "No source is cited."


def overall_confidence(synthesis: Synthesis, reviews: list[Review], answered: bool) -> str:
    """From what was established, never from how much was read or how directions scored:
    the relevant facts the checks accepted (verified or single-origin, no conflict), those
    two or more independent origins agree on, and whether they answer the topic.

        high    the topic is answered, and at least half of the established facts rest
                on independent origins, with no direction short of data or crashed
        medium  the topic is answered, or some fact rests on independent origins
        low     anything else: an off-topic report of many sources is low, and so is
                one where every direction ended with insufficient data
    """
    established = [
        g for g in synthesis.groups if not g.conflict and g.lead.status in ("verified", "weak")
    ]
    if not established or (reviews and all(r.insufficient or r.crashed for r in reviews)):
        return "low"  # no direction established its own sub-question
    settled = not any(r.insufficient or r.crashed for r in reviews)
    if answered and settled and 2 * synthesis.high >= len(established):
        return "high"
    return "medium" if answered or synthesis.high else "low"


def summary_lines(
    topic: str, synthesis: Synthesis, reviews: list[Review], gap_list: list[str],
    sources: int, path: Path | str, answer: str = "", *, answered: bool = False,
) -> list[str]:  # fmt: skip
    """The spec's chat summary; its key findings open with the short answer. ``sources``:
    the sources the report's findings cite (what the confidence is based on)."""
    said = answer.casefold().rstrip(" .")
    texts = [k for k in synthesis.key_texts[:3] if k.casefold().rstrip(" .") != said]
    key = " ".join(k.rstrip(".") + "." for k in texts)  # the answer is not said twice
    if answer:
        key = f"Answer: {answer.rstrip('.')}. {key}".strip()
    return [
        f"Research complete: {topic}",
        f"Key findings: {key or 'no accepted source stated a relevant fact on this topic.'}",
        f"Confidence: {overall_confidence(synthesis, reviews, answered)} — based on {sources} "
        f"sources across {len(reviews)} directions",
        f"Gaps: {'; '.join(gap_list[:4]) + (' …' if len(gap_list) > 4 else '') or 'none'}",
        f"Full report: {path}",
    ]


def check_integrity(path: Path) -> list[str]:
    """Every problem with the saved report (an empty list when it passes)."""
    if not path.is_file():
        return [f"{path} does not exist"]
    text = path.read_text(encoding="utf-8")
    if not text.strip():
        return [f"{path} is empty"]
    problems = [f"the section {s!r} is missing" for s in SECTIONS if s not in text.splitlines()]
    body, _, bib = text.partition("\n## Bibliography\n")
    cited = set(_CITATION.findall(body))
    entries = _ENTRY.findall(bib)
    if len(entries) != len(cited) or set(entries) != cited:
        problems.append(
            f"the bibliography has {len(entries)} entries but the body cites {len(cited)} "
            f"sources ([N] without an entry: {sorted(cited - set(entries), key=int)}; entries "
            f"never cited: {sorted(set(entries) - cited, key=int)})"
        )
    left = sorted(set(_SLOT.findall(text))) + [p for p in _SPEC_PLACEHOLDERS if p in text]
    if left:
        problems.append(f"template placeholders remain: {', '.join(left)}")
    return problems


def save_report(text: str, directory: Path, name: str) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / name
    path.write_text(redact(text), encoding="utf-8")  # outside the store: mask keys here too
    problems = check_integrity(path)
    if problems:
        raise IntegrityError(f"the report {path} fails its integrity check: " + "; ".join(problems))
    return path
