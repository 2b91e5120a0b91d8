"""Run-wide integrity: do the files still hold what assay wrote?

Three audits ``assay verify`` runs beside re-deriving statuses, each returning failures
that name what is wrong:

- ``audit_links``: no file or folder of the run is a symbolic link (assay never writes
  one, and a link can point a check, or a write, at any file); a run with one is refused
  before anything in it is read;
- ``audit_snapshots``: every source's snapshot exists, hashes to its recorded sha256
  (whether or not a claim cites it), and its front matter reads as the source's line says;
- ``audit_chain``: run.json, sources.jsonl, claims.jsonl, run.log.jsonl and the chained
  top-level files (report.md, report.json, plan.md) match the latest entries of the run's
  hash chain (``store.chain``), record by record, field by field and in order, and the
  chain itself links up and opens with the header of its current format. A run without a
  chain fails: nothing a forger cannot delete with it tells an older run from theirs.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from assay.errors import UnsafePathError
from assay.store.chain import CHAIN_FILE, FORMAT, ChainRead, HashChain, file_parts, record_parts
from assay.store.claims import CLAIMS_FILE
from assay.store.eventlog import LOG_FILE
from assay.store.jsonl import read_jsonl
from assay.store.runs import REPORT_FILE, REPORT_JSON_FILE, RUN_FILE
from assay.store.sources import (
    SOURCES_FILE,
    SourceLedger,
    SourceRecord,
    render_snapshot,
    snapshot_text,
    text_sha256,
)

NO_CHAIN = (
    f"{CHAIN_FILE} is missing: the run predates hash chains or its chain was deleted, and "
    "the two cannot be told apart, so none of its files can be verified"
)


@dataclass
class Audit:
    failures: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    chain: ChainRead | None = None


@dataclass(frozen=True)
class _Ledger:
    """One kind of chained record: the file it lives in, and how its records are named."""

    kind: str
    file: str
    noun: str
    """"source", "claim", "event"; empty for run.json, which is one record."""

    def name(self, record_id: str) -> str:
        return f"{self.noun} {record_id}" if self.noun else self.file

    @property
    def where(self) -> str:
        return f" in {self.file}" if self.noun else ""


SOURCES = _Ledger("source", SOURCES_FILE, "source")
CLAIMS = _Ledger("claim", CLAIMS_FILE, "claim")
EVENTS = _Ledger("event", LOG_FILE, "event")
RUN = _Ledger("run", RUN_FILE, "")
_CHAINED_FILES = frozenset({CHAIN_FILE, SOURCES_FILE, CLAIMS_FILE, LOG_FILE, RUN_FILE})


def audit_links(run_dir: Path) -> list[str]:
    """Every symbolic link in the run directory (the directory itself included), named."""
    if run_dir.is_symlink():
        return [f"{run_dir.name} is a symbolic link: refused (assay never writes links)"]
    found = []
    for folder, folders, files in os.walk(run_dir):
        for name in sorted([*folders, *files]):
            path = Path(folder, name)
            if path.is_symlink():
                relative = path.relative_to(run_dir).as_posix()
                found.append(
                    f"{relative} is a symbolic link: refused (assay never writes links, and "
                    "a link can point a check at any file)"
                )
    return found


def audit_snapshots(run_dir: Path, records: Sequence[SourceRecord]) -> list[str]:
    failures = []
    ledger = SourceLedger(run_dir)
    for record in records:
        try:
            whole = ledger.read_snapshot_file(record)
        except UnsafePathError:
            failures.append(f"{record.id}: snapshot {record.snapshot} is outside the run")
            continue
        except (OSError, UnicodeDecodeError):
            failures.append(f"{record.id}: snapshot {record.snapshot} is missing")
            continue
        text = snapshot_text(whole)
        if text_sha256(text) != record.sha256:
            failures.append(f"{record.id}: snapshot {record.snapshot} was altered")
            continue
        expected = render_snapshot(record, text)
        if whole != expected:
            lines = set(whole.splitlines())
            changed = [line.split(":", 1)[0] for line in expected.splitlines() if line not in lines]
            failures.append(
                f"{record.id}: the front matter of {record.snapshot} was altered "
                f"({', '.join(changed) or 'lines added'}): it no longer reads as {SOURCES_FILE}"
            )
    return failures


def audit_chain(run_dir: Path, *, declared: bool) -> Audit:
    """Compare the run's files with its hash chain; ``declared`` is run.json's word that
    the run has one (it only changes the message: no chain fails either way)."""
    audit = Audit()
    chain = HashChain(run_dir)
    if not chain.started:
        audit.failures.append(
            f"{CHAIN_FILE} is missing: run.json says the run has one, so it was deleted"
            if declared
            else NO_CHAIN
        )
        return audit
    read = audit.chain = chain.read()
    header = read.header
    if header is None or header.get("format") != FORMAT:
        audit.failures.append(
            f"{CHAIN_FILE} does not start with the header of chain format {FORMAT}: it was "
            "written before assay chained every field of a run, or rebuilt by hand, so the "
            "run's files cannot be verified"
        )
    audit.failures.extend(read.breaks)
    audit.warnings.extend(read.warnings)
    for ledger in (SOURCES, CLAIMS):
        _compare_lines(audit, ledger, read, _lines(run_dir / ledger.file), key="id")
    _compare_lines(audit, EVENTS, read, _lines(run_dir / EVENTS.file), key="seq")
    _compare_run_file(audit, run_dir, read)
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
    covered = {*files, *_CHAINED_FILES}
    for path in sorted(run_dir.iterdir()):
        if path.is_file() and path.name not in covered and not path.name.startswith("."):
            audit.warnings.append(f"{path.name} is not covered by {CHAIN_FILE}: not verified")
    return audit


def _lines(path: Path) -> list[dict[str, Any]]:
    return read_jsonl(path).records


def _compare_run_file(audit: Audit, run_dir: Path, read: ChainRead) -> None:
    try:
        info = json.loads((run_dir / RUN_FILE).read_bytes())
    except (OSError, ValueError):
        audit.failures.append(f"{RUN_FILE} is missing or is not JSON")
        return
    found = {RUN_FILE: record_parts(info)} if isinstance(info, dict) else {}
    _compare(audit, RUN, found, read.latest(RUN.kind))


def _compare_lines(
    audit: Audit, ledger: _Ledger, read: ChainRead, records: list[dict[str, Any]], *, key: str
) -> None:
    """Each line against its latest entry, then the order of the lines against the order
    in which they were first chained (a journal keeps its records where they were added)."""
    ids = [str(record.get(key)) for record in records]
    for record_id in dict.fromkeys(i for i in ids if ids.count(i) > 1):
        audit.failures.append(
            f"{ledger.name(record_id)} appears {ids.count(record_id)} times in {ledger.file}"
        )
    chained = read.latest(ledger.kind)
    _compare(
        audit, ledger, {i: record_parts(r) for i, r in zip(ids, records, strict=True)}, chained
    )
    common = set(ids) & set(chained)
    in_file = [i for i in dict.fromkeys(ids) if i in common]
    as_written = [i for i in chained if i in common]
    for here, written in zip(in_file, as_written, strict=True):
        if here != written:
            audit.failures.append(
                f"{ledger.file} is out of order: {ledger.name(here)} stands where assay "
                f"wrote {ledger.name(written)}"
            )
            break


def _compare(
    audit: Audit,
    ledger: _Ledger,
    found: Mapping[str, Mapping[str, str]],
    chained: Mapping[str, Mapping[str, str]],
) -> None:
    for record_id, parts in found.items():
        recorded = chained.get(record_id)
        name = ledger.name(record_id)
        if recorded is None:
            audit.failures.append(f"{name}{ledger.where} is not in {CHAIN_FILE} (added by hand?)")
            continue
        changed = sorted(
            k for k in parts.keys() | recorded.keys() if parts.get(k) != recorded.get(k)
        )
        if changed:
            audit.failures.append(
                f"{name} was edited{ledger.where}: {', '.join(changed)} changed "
                "since assay recorded it"
            )
    for record_id in chained:
        if record_id not in found:
            audit.failures.append(
                f"{ledger.name(record_id)} is in {CHAIN_FILE} but missing from {ledger.file} "
                "(a removed line)"
            )
