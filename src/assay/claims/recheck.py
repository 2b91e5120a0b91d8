"""``assay verify``: re-derive every status from the run's files alone, with no model.

A run with a symbolic link anywhere in it is refused before anything is read
(``claims.integrity.audit_links``). Otherwise the judge's stances are taken from
claims.jsonl, but everything that makes them count is re-checked: each quote must still
be in its snapshot at its offsets, each snapshot must still hash to what was recorded,
each supporting quote must hold the claim's numbers and names (``claims.mechanical``), and
origins are re-grouped from the URLs the sources were fetched from. Then the whole run is
audited (``claims.integrity``): every snapshot, and every field of every record and
report version against the run's hash chain. Every URL and claim marker in the report
must match what the run really fetched and found.

A failure is anything an honest run does not produce, whatever the claim's status: a
tampered file, a quote not at its offsets, a claim citing a source the run never fetched,
a report marker naming no claim, a run without a hash chain, or a recorded or presented
status that differs from the one the files re-derive (a weak claim that now re-derives
as needs_review was tampered with as surely as a verified one). Claims still
``unverified`` make no promise to check.

``rejudge`` goes further, with a judge: each claim's text against each of its supporting
quotes, so a claim whose text says something its quotes do not is caught even when the
run's chain was rewritten consistently.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path

from pydantic import ValidationError

from assay.claims.assessment import RunSources, reassess
from assay.claims.integrity import audit_chain, audit_links, audit_snapshots
from assay.claims.judge import Judge
from assay.claims.mechanical import CheckResult
from assay.errors import ProviderError
from assay.events import ClaimVerified
from assay.store.claims import ClaimLedger, ClaimRecord
from assay.store.eventlog import EventLog
from assay.store.markers import cited_urls, claim_markers
from assay.store.runs import REPORT_FILE, load_info
from assay.store.sources import SourceLedger


@dataclass(frozen=True)
class ClaimRecheck:
    """One claim: what was recorded, what the files support now, and why."""

    claim_id: str
    recorded: str
    presented: str | None
    rederived: str
    reason: str
    checks: tuple[CheckResult, ...]
    rejudged: tuple[str, ...] = ()
    """With ``--rejudge``: the judge's label for the claim text against each supporting quote."""

    def problems(self) -> list[str]:
        """Why this claim fails the run's check (empty when it holds)."""
        found = [f"{self.claim_id}: {c.name}: {c.detail}" for c in self.checks if c.tampering]
        for where, status in (("claims.jsonl", self.recorded), ("the report", self.presented)):
            if status not in (None, "unverified", self.rederived):
                found.append(
                    f"{self.claim_id}: {where} says {status}, but it re-derives as "
                    f"{self.rederived}: {self.reason}"
                )
        return found

    @property
    def failed(self) -> bool:
        return bool(self.problems()) or any(label != "SUPPORTS" for label in self.rejudged)


@dataclass
class RecheckReport:
    claims: list[ClaimRecheck] = field(default_factory=list)
    records: dict[str, ClaimRecord] = field(default_factory=dict)
    failures: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    refused: bool = False
    """The run was not read at all (a symbolic link in it): nothing may be written to it."""
    chain_head: tuple[int, str] | None = None
    """(entries, hash of the last one): what an outside witness keeps to catch a chain
    rewritten whole (``store.chain``)."""

    @property
    def ok(self) -> bool:
        return not self.failures

    def to_json(self, run_id: str) -> dict[str, object]:
        """The ``--json`` object of ``assay verify`` (and the web API's answer)."""
        return {
            "run": run_id,
            "ok": self.ok,
            "failures": self.failures,
            "warnings": self.warnings,
            "chain": (
                {"entries": self.chain_head[0], "head": self.chain_head[1]}
                if self.chain_head
                else None
            ),
            "claims": [
                {
                    "id": c.claim_id,
                    "recorded": c.recorded,
                    "presented": c.presented,
                    "rederived": c.rederived,
                    "reason": c.reason,
                    "failed": c.failed,
                    "rejudged": list(c.rejudged),
                    "checks": {k.name: k.to_json() for k in c.checks},
                }
                for c in self.claims
            ],
        }

    def record(self, events: EventLog) -> None:
        """Each re-derived status as a ``claim.verified`` event of the run (none into a
        refused run: its log may be a link to anywhere)."""
        if self.refused:
            return
        for item in self.claims:
            events.emit(
                ClaimVerified(
                    id=item.claim_id,
                    status=item.rederived,  # type: ignore[arg-type]
                    reason=f"assay verify: {item.reason}",
                )
            )


def recheck_run(run_dir: Path) -> RecheckReport:
    report = RecheckReport()
    links = audit_links(run_dir)
    if links:
        report.failures.extend(links)
        report.refused = True
        return report
    try:
        sources = RunSources.load(SourceLedger(run_dir))
    except ValidationError as exc:
        report.failures.append(f"sources.jsonl has an invalid record: {exc.errors()[0]['msg']}")
        return report
    origins = sources.origins()
    read = ClaimLedger(run_dir).read()
    report_path = run_dir / REPORT_FILE
    text = report_path.read_text(encoding="utf-8") if report_path.is_file() else ""
    presented = dict(claim_markers(text))
    report.failures.extend(audit_snapshots(run_dir, list(sources.records.values())))
    claims: list[ClaimRecord] = []
    for number, raw in enumerate(read.records, start=1):
        try:
            claims.append(ClaimRecord.model_validate(raw))
        except ValidationError as exc:
            report.failures.append(
                f"claims.jsonl record {number} is invalid: {exc.errors()[0]['msg']}"
            )
    for claim in claims:
        report.records[claim.id] = claim
        status, reason, results = reassess(claim, sources, origins)
        item = ClaimRecheck(
            claim.id, claim.status, presented.get(claim.id), status, reason, tuple(results)
        )
        report.claims.append(item)
        report.failures.extend(item.problems())
    for claim_id in presented:
        if claim_id not in report.records:
            report.failures.append(f"the report marks {claim_id}, which claims.jsonl does not have")
    fetched = {u for r in sources.records.values() for u in (r.url, r.final_url)}
    for url in dict.fromkeys(cited_urls(text)):
        if url not in fetched:
            report.failures.append(f"the report cites {url}, which the run never fetched")
    chain = audit_chain(run_dir, declared=load_info(run_dir).hash_chain)
    if chain.chain is not None and chain.chain.entries:
        last = chain.chain.entries[-1]
        report.chain_head = (len(chain.chain.entries), last.hash)
    report.failures.extend(chain.failures)
    report.warnings.extend(chain.warnings)
    report.warnings.extend(f"claims.jsonl: {p}" for p in read.problems)
    return report


async def rejudge(report: RecheckReport, judge: Judge) -> None:
    """Judge each claim's text against each of its supporting quotes; a quote that does
    not support the text fails the run (the claim says something its evidence does not)."""
    for index, item in enumerate(report.claims):
        claim = report.records[item.claim_id]
        labels = []
        for evidence in claim.evidence:
            if evidence.stance != "supports":
                continue
            try:
                verdict = await judge.judge(claim.text, evidence.quote)
            except ProviderError as exc:
                failed_on = f"{claim.id} vs {evidence.source_id}"
                report.warnings.append(f"{failed_on}: the judge failed ({exc}); not rejudged")
                continue
            labels.append(verdict.label)
            if verdict.label != "SUPPORTS":
                report.failures.append(
                    f"{claim.id}: its quote from {evidence.source_id} does not support its text "
                    f"({judge.name} says {verdict.label}): {claim.text!r}"
                )
        report.claims[index] = replace(item, rejudged=tuple(labels))
