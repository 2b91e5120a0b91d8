"""What a claim's recorded evidence earns: its status, the reason and the checks recorded.

The verification engine assesses each claim after judging it; ``assay verify`` and a
resumed deep run (``reassess``) derive the same status again from the run's files alone:
the snapshots, the quotes at their offsets, the origins, and the judge's doubt and the
vetoes (``claims.vetoes``) the claim's checks recorded.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from assay.claims.independence import Origins, group_origins
from assay.claims.mechanical import CheckResult, mechanical_checks
from assay.claims.status import Judgment, decide_status
from assay.claims.vetoes import Veto
from assay.errors import UnsafePathError
from assay.statuses import SettledStatus
from assay.store.claims import ClaimRecord
from assay.store.sources import SourceLedger, SourceRecord


@dataclass(frozen=True)
class RunSources:
    """A run's sources and the text of their snapshots, read once."""

    records: Mapping[str, SourceRecord]
    texts: Mapping[str, str]

    @classmethod
    def load(cls, ledger: SourceLedger) -> RunSources:
        records = {r.id: r for r in ledger.records()}
        texts = {}
        for source_id, record in records.items():
            try:
                texts[source_id] = ledger.read_snapshot(record)
            except (OSError, UnicodeDecodeError, UnsafePathError):
                continue  # a missing (or unreadable) snapshot fails snapshot_intact
        return cls(records, texts)

    def origins(self) -> Origins:
        return group_origins(list(self.records.values()), self.texts)


def assess(
    claim: ClaimRecord,
    sources: RunSources,
    origins: Origins,
    *,
    unsure: bool,
    set_aside: Sequence[Veto] = (),
) -> tuple[SettledStatus, str, list[CheckResult]]:
    """The status a claim's recorded evidence earns: the mechanical checks, then the
    stances of its located quotes counted by independent origin. A claim left for review
    says which rules set its judge's verdicts aside (``set_aside``), if any did."""
    results = mechanical_checks(claim, sources.records, sources.texts)
    judgments = [
        Judgment(e.source_id, "SUPPORTS" if e.stance == "supports" else "REFUTES", e.quote)
        for e in claim.evidence
        if e.stance in ("supports", "refutes")
    ]
    if unsure:
        judgments.append(Judgment("", "NOT_ENOUGH_INFO", "", confident=False))
    status, reason = decide_status(results, judgments, origins)
    if status == "needs_review" and set_aside:
        reason = f"{reason}; set aside: {'; '.join(v.describe() for v in set_aside)}"
    return status, reason, results


def checks_json(
    results: list[CheckResult],
    origins: Origins,
    claim: ClaimRecord,
    *,
    unsure: bool,
    set_aside: Sequence[Veto] = (),
) -> dict[str, object]:
    supporting = [e.source_id for e in claim.evidence if e.stance == "supports"]
    recorded: dict[str, object] = {r.name: r.to_json() for r in results}
    recorded["independence"] = {
        "supporting_origins": origins.count(supporting),
        "origins": sorted({origins.of[s] for s in supporting if s in origins.of}),
    }
    recorded["judge_unsure"] = unsure
    recorded["set_aside"] = [v.to_json() for v in set_aside]
    return recorded


def reassess(
    claim: ClaimRecord, sources: RunSources, origins: Origins
) -> tuple[SettledStatus, str, list[CheckResult]]:
    """The status a claim's files earn now, with the judge's doubt and the vetoes its
    checks recorded (none for a run written before vetoes were)."""
    raw = claim.checks.get("set_aside", [])
    vetoes = [Veto.from_json(v) for v in raw] if isinstance(raw, list) else []
    unsure = bool(claim.checks.get("judge_unsure", False))
    return assess(claim, sources, origins, unsure=unsure, set_aside=vetoes)
