"""Run-wide integrity: do the files still hold what assay wrote?

Two audits ``assay verify`` runs beside re-deriving statuses, each returning failures
that name what is wrong:

- ``audit_snapshots``: every source's snapshot exists and hashes to its recorded sha256,
  whether or not a claim cites it;
- ``audit_chain``: sources.jsonl, claims.jsonl and the chained top-level files (report.md,
  report.json, plan.md) match the latest entries of the run's hash chain
  (``store.chain``), record by record and part by part, and the chain itself links up.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from assay.store.chain import CHAIN_FILE, HashChain, file_parts
from assay.store.claims import CLAIMS_FILE, ClaimRecord
from assay.store.runs import REPORT_FILE, REPORT_JSON_FILE
from assay.store.sources import SOURCES_FILE, SourceRecord, text_sha256

NO_CHAIN = "no hash chain (older run): edits to claims, sources and the report cannot be detected"


@dataclass
class Audit:
    failures: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)


def audit_snapshots(records: Sequence[SourceRecord], texts: Mapping[str, str]) -> list[str]:
    failures = []
    for record in records:
        text = texts.get(record.id)
        if text is None:
            failures.append(f"{record.id}: snapshot {record.snapshot} is missing")
        elif text_sha256(text) != record.sha256:
            failures.append(f"{record.id}: snapshot {record.snapshot} was altered")
    return failures


def audit_chain(
    run_dir: Path,
    *,
    expected: bool,
    sources: Sequence[SourceRecord],
    claims: Sequence[ClaimRecord],
) -> Audit:
    """Compare the run's records with its hash chain; ``expected`` says run.json promised one."""
    audit = Audit()
    chain = HashChain(run_dir)
    if not chain.started:
        if expected:
            audit.failures.append(f"{CHAIN_FILE} is missing: the run's hash chain was deleted")
        else:
            audit.warnings.append(NO_CHAIN)
        return audit
    read = chain.read()
    audit.failures.extend(read.breaks)
    audit.warnings.extend(read.warnings)
    _compare(
        audit,
        "source",
        SOURCES_FILE,
        {s.id: s.chain_parts() for s in sources},
        read.latest("source"),
    )
    ids = [c.id for c in claims]
    for claim_id in sorted({i for i in ids if ids.count(i) > 1}):
        times = ids.count(claim_id)
        audit.failures.append(f"claim {claim_id} appears {times} times in {CLAIMS_FILE}")
    _compare(
        audit, "claim", CLAIMS_FILE, {c.id: c.chain_parts() for c in claims}, read.latest("claim")
    )
    files = read.latest("file")
    for name, parts in files.items():
        path = run_dir / name
        if not path.is_file():
            audit.failures.append(f"{name} was deleted after assay wrote it")
        elif file_parts(path.read_bytes()) != parts:
            audit.failures.append(f"{name} was edited after assay wrote it")
    for name in (REPORT_FILE, REPORT_JSON_FILE):
        if name not in files and (run_dir / name).is_file():
            audit.failures.append(f"{name} was not written by assay (it is not in {CHAIN_FILE})")
    return audit


def _compare(
    audit: Audit,
    kind: str,
    file: str,
    found: Mapping[str, Mapping[str, str]],
    chained: Mapping[str, Mapping[str, str]],
) -> None:
    for record_id, parts in found.items():
        recorded = chained.get(record_id)
        if recorded is None:
            audit.failures.append(
                f"{kind} {record_id} in {file} is not in {CHAIN_FILE} (added by hand?)"
            )
            continue
        changed = [name for name in parts if parts[name] != recorded.get(name)]
        if changed:
            audit.failures.append(
                f"{kind} {record_id} was edited in {file}: {', '.join(changed)} changed "
                "since assay recorded it"
            )
    for record_id in chained:
        if record_id not in found:
            audit.failures.append(
                f"{kind} {record_id} is in {CHAIN_FILE} but missing from {file} (a removed line)"
            )
