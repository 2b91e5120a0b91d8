"""Mechanical checks: what code can repeat about a claim without any model.

1. every cited source exists in sources.jsonl;
2. each cited source's snapshot still hashes to the sha256 recorded when it was saved;
3. every evidence quote occurs in its snapshot at the recorded offsets (after whitespace
   and Unicode normalisation);
4. each supporting quote holds every number, date and quantity of the claim — one quote
   all of them, not one each scattered over several (a claim that only refuting quotes
   speak to has none to check);
5. each supporting quote names what the claim names (its names, in the quote or in the
   title of the quote's page, which names the subject of an "It was …" sentence).

4 and 5 are the claim's key facts (``key_facts_missing``): the engine takes no SUPPORTS
whose quote lacks one, whatever a judge (or a page that instructed it) says, and
``assay verify`` repeats both on the recorded quotes, so support that lacks them fails a
run without a model.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from assay.claims.normalize import normalize_text, numbers_in
from assay.reading.names import names_in
from assay.store.claims import ClaimRecord, Evidence
from assay.store.sources import SourceRecord, text_sha256
from assay.text import content_words


@dataclass(frozen=True)
class CheckResult:
    """One check on one claim: its name, whether it passed, and why not."""

    name: str
    passed: bool
    detail: str = ""
    tampering: bool = False
    """A failure no honest run produces (the files were changed after assay wrote them),
    as opposed to one that only leaves the claim for review (a number not quoted)."""

    def to_json(self) -> dict[str, object]:
        return {"passed": self.passed, "detail": self.detail}


def check_sources_exist(claim: ClaimRecord, sources: Mapping[str, SourceRecord]) -> CheckResult:
    cited = set(claim.source_ids) | {e.source_id for e in claim.evidence}
    missing = sorted(cited - set(sources))
    if not cited:
        return CheckResult("sources_exist", False, "cites no source")
    if missing:
        return CheckResult(
            "sources_exist", False, f"cites unknown source {', '.join(missing)}", tampering=True
        )
    return CheckResult("sources_exist", True)


def check_snapshots_intact(
    claim: ClaimRecord, sources: Mapping[str, SourceRecord], texts: Mapping[str, str]
) -> CheckResult:
    for source_id in sorted(set(claim.source_ids) & set(sources)):
        text = texts.get(source_id)
        if text is None:
            return CheckResult(
                "snapshot_intact", False, f"{source_id}: snapshot missing", tampering=True
            )
        if text_sha256(text) != sources[source_id].sha256:
            return CheckResult(
                "snapshot_intact", False, f"{source_id}: snapshot altered", tampering=True
            )
    return CheckResult("snapshot_intact", True)


def check_quotes_located(claim: ClaimRecord, texts: Mapping[str, str]) -> CheckResult:
    if not claim.evidence:
        return CheckResult("quotes_located", False, "no evidence quote")
    for index, evidence in enumerate(claim.evidence):
        text = texts.get(evidence.source_id)
        if text is None:
            return CheckResult(
                "quotes_located", False, f"evidence {index}: no snapshot", tampering=True
            )
        if not 0 <= evidence.start < evidence.end <= len(text):
            return CheckResult(
                "quotes_located", False, f"evidence {index}: offsets out of range", tampering=True
            )
        found = normalize_text(text[evidence.start : evidence.end])
        if found != normalize_text(evidence.quote):
            return CheckResult(
                "quotes_located",
                False,
                f"evidence {index}: quote not found at {evidence.start}-{evidence.end} "
                f"of {evidence.source_id}",
                tampering=True,
            )
    return CheckResult("quotes_located", True)


def claim_names(text: str) -> list[str]:
    """The names a claim gives; its first word is capitalised as every sentence's is, so
    it counts only inside a name ("Construction of the X Lighthouse" names "X Lighthouse")."""
    return names_in(text[:1].lower() + text[1:])


def missing_numbers(claim: str, quote: str) -> list[str]:
    return sorted(numbers_in(claim) - numbers_in(quote))


def missing_names(claim: str, quote: str, title: str = "") -> list[str]:
    held = set(content_words(f"{quote} {title}"))
    return [n for n in claim_names(claim) if not set(content_words(n)) <= held]


def key_facts_missing(claim: str, quote: str, title: str = "") -> list[str]:
    """The claim's numbers and names a supporting quote lacks (a name may stand in the
    title of the quote's page instead)."""
    return missing_numbers(claim, quote) + missing_names(claim, quote, title)


def _supporting(claim: ClaimRecord) -> list[tuple[int, Evidence]]:
    return [(i, e) for i, e in enumerate(claim.evidence) if e.stance == "supports"]


def _lacking(found: list[tuple[int, Evidence, list[str]]]) -> str:
    return "; ".join(f"evidence {i} ({e.source_id}) lacks {', '.join(m)}" for i, e, m in found if m)


def check_numbers_supported(claim: ClaimRecord) -> CheckResult:
    if not numbers_in(claim.text):
        return CheckResult("numbers_supported", True, "no numbers in the claim")
    supporting = _supporting(claim)
    if not supporting:
        if any(e.stance == "refutes" for e in claim.evidence):
            # A refuted claim's numbers are the ones the refuting quote disagrees with.
            return CheckResult("numbers_supported", True, "nothing supports it: only refuted")
        wanted = ", ".join(sorted(numbers_in(claim.text)))
        return CheckResult("numbers_supported", False, f"not in any supporting quote: {wanted}")
    lacking = _lacking([(i, e, missing_numbers(claim.text, e.quote)) for i, e in supporting])
    return CheckResult("numbers_supported", not lacking, lacking)


def check_names_supported(claim: ClaimRecord, sources: Mapping[str, SourceRecord]) -> CheckResult:
    found = []
    for index, evidence in _supporting(claim):
        record = sources.get(evidence.source_id)
        title = (record.title or "") if record is not None else ""
        found.append((index, evidence, missing_names(claim.text, evidence.quote, title)))
    lacking = _lacking(found)
    return CheckResult("names_supported", not lacking, lacking)


def mechanical_checks(
    claim: ClaimRecord, sources: Mapping[str, SourceRecord], texts: Mapping[str, str]
) -> list[CheckResult]:
    """All mechanical checks of one claim, in order."""
    return [
        check_sources_exist(claim, sources),
        check_snapshots_intact(claim, sources, texts),
        check_quotes_located(claim, texts),
        check_numbers_supported(claim),
        check_names_supported(claim, sources),
    ]
