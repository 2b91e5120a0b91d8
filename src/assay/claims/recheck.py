"""``assay verify``: re-derive every status from the run's files alone, with no model.

The judge's stances are taken from claims.jsonl, but everything that makes them count is
re-checked: each quote must still be in its snapshot at its offsets, each snapshot must
still hash to what was recorded, every number must be quoted, origins are re-grouped, and
every URL and claim marker in the report must match what the run really fetched and
found. A claim the report (or the ledger) presents as verified that does not re-derive
as verified fails the run's check.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from pydantic import ValidationError

from assay.claims.engine import RunSources, assess
from assay.claims.mechanical import CheckResult
from assay.report.markers import cited_urls, claim_markers
from assay.store.claims import ClaimLedger, ClaimRecord
from assay.store.runs import REPORT_FILE


@dataclass(frozen=True)
class ClaimRecheck:
    """One claim: what was recorded, what the files support now, and why."""

    claim_id: str
    recorded: str
    presented: str | None
    rederived: str
    reason: str
    checks: tuple[CheckResult, ...]

    @property
    def failed(self) -> bool:
        claimed_verified = "verified" in (self.recorded, self.presented)
        return claimed_verified and self.rederived != "verified"


@dataclass
class RecheckReport:
    claims: list[ClaimRecheck] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.failures


def recheck_run(run_dir: Path) -> RecheckReport:
    report = RecheckReport()
    sources = RunSources.load(run_dir)
    origins = sources.origins()
    read = ClaimLedger(run_dir).read()
    report_path = run_dir / REPORT_FILE
    text = report_path.read_text(encoding="utf-8") if report_path.is_file() else ""
    presented = dict(claim_markers(text))
    known: set[str] = set()
    for number, raw in enumerate(read.records, start=1):
        try:
            claim = ClaimRecord.model_validate(raw)
        except ValidationError as exc:
            report.failures.append(
                f"claims.jsonl record {number} is invalid: {exc.errors()[0]['msg']}"
            )
            continue
        known.add(claim.id)
        unsure = bool(claim.checks.get("judge_unsure", False))
        status, reason, results = assess(claim, sources, origins, unsure=unsure)
        item = ClaimRecheck(
            claim.id, claim.status, presented.get(claim.id), status, reason, tuple(results)
        )
        report.claims.append(item)
        if item.failed:
            where = "the report" if item.presented == "verified" else "claims.jsonl"
            report.failures.append(f"{claim.id}: {where} says verified, but {reason}")
    for claim_id in presented:
        if claim_id not in known:
            report.failures.append(f"the report marks {claim_id}, which claims.jsonl does not have")
    fetched = {u for r in sources.records.values() for u in (r.url, r.final_url)}
    for url in dict.fromkeys(cited_urls(text)):
        if url not in fetched:
            report.failures.append(f"the report cites {url}, which the run never fetched")
    report.warnings.extend(f"claims.jsonl: {p}" for p in read.problems)
    return report
