"""Mechanical checks: what code can repeat about a claim without any model.

1. every cited source exists in sources.jsonl;
2. each cited source's snapshot still hashes to the sha256 recorded when it was saved;
3. every evidence quote occurs in its snapshot at the recorded offsets (after whitespace
   and Unicode normalisation);
4. the numbers, dates and quantities in the claim appear in its supporting quotes (a claim
   that only refuting quotes speak to has none to check).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from assay.claims.normalize import normalize_text, numbers_in
from assay.store.claims import ClaimRecord
from assay.store.sources import SourceRecord, text_sha256


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


def check_numbers_supported(claim: ClaimRecord) -> CheckResult:
    wanted = numbers_in(claim.text)
    if not wanted:
        return CheckResult("numbers_supported", True, "no numbers in the claim")
    supporting = [e.quote for e in claim.evidence if e.stance == "supports"]
    if not supporting and any(e.stance == "refutes" for e in claim.evidence):
        # A refuted claim's numbers are the ones the refuting quote disagrees with.
        return CheckResult("numbers_supported", True, "nothing supports it: only refuted")
    present = set().union(*(numbers_in(q) for q in supporting)) if supporting else set()
    missing = sorted(wanted - present)
    if missing:
        return CheckResult(
            "numbers_supported", False, f"not in any supporting quote: {', '.join(missing)}"
        )
    return CheckResult("numbers_supported", True)


def mechanical_checks(
    claim: ClaimRecord, sources: Mapping[str, SourceRecord], texts: Mapping[str, str]
) -> list[CheckResult]:
    """All mechanical checks of one claim, in order."""
    return [
        check_sources_exist(claim, sources),
        check_snapshots_intact(claim, sources, texts),
        check_quotes_located(claim, texts),
        check_numbers_supported(claim),
    ]
