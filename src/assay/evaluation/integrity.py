"""Citation integrity of one run, from its files: what a report cites against what was read.

- fabricated URLs: links in the report to no source the run fetched;
- missing quotes: claim quotes not found verbatim in their source's snapshot;
- sentence support: report sentences carrying claim markers whose claims' quotes (and the
  claims' page titles: a claim names its page's subject) support them
  (``assay.claims.grounding.grounded``), and fabricated markers — claim ids the ledger
  lacks, ``[n]`` past the source list.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass
from pathlib import Path

from assay.claims.grounding import grounded
from assay.evaluation.citations import body_lines, statement_text
from assay.store.claims import ClaimLedger, ClaimRecord
from assay.store.markers import cited_urls, claim_markers
from assay.store.sources import SourceLedger, SourceRecord, snapshot_text

_NUMBERS = re.compile(r"\[(\d+)\]")


@dataclass(frozen=True)
class Integrity:
    cited_urls: int = 0
    fabricated_urls: int = 0
    quotes: int = 0
    quotes_missing: int = 0
    sentences: int = 0
    sentences_supported: int = 0
    fabricated_markers: int = 0

    def to_json(self) -> dict[str, int]:
        return asdict(self)


def audit_run(run_dir: Path, report: str) -> Integrity:
    """The citation integrity of the run in ``run_dir`` and its report text."""
    records = SourceLedger(run_dir).records()
    claims = ClaimLedger(run_dir).claims()
    fetched = {u for r in records for u in (r.url, r.final_url) if u}
    links = cited_urls(report)
    quotes, missing = _quotes(run_dir, claims, records)
    sentences, supported, fabricated = sentence_support(report, claims, records)
    return Integrity(
        cited_urls=len(links),
        fabricated_urls=sum(u not in fetched for u in links),
        quotes=quotes,
        quotes_missing=missing,
        sentences=sentences,
        sentences_supported=supported,
        fabricated_markers=fabricated,
    )


def _quotes(
    run_dir: Path, claims: list[ClaimRecord], records: list[SourceRecord]
) -> tuple[int, int]:
    texts: dict[str, str] = {}
    for record in records:
        path = run_dir / record.snapshot
        texts[record.id] = snapshot_text(path.read_text(encoding="utf-8")) if path.is_file() else ""
    checked = missing = 0
    for claim in claims:
        for evidence in claim.evidence:
            checked += 1
            missing += evidence.quote not in texts.get(evidence.source_id, "")
    return checked, missing


def sentence_support(
    report: str, claims: list[ClaimRecord], records: list[SourceRecord]
) -> tuple[int, int, int]:
    """(sentences with a marker, of them supported by their claims' quotes, fabricated)."""
    by_id = {c.id: c for c in claims}
    titles = {r.id: r.title or "" for r in records}
    checked = supported = fabricated = 0
    for line in body_lines(report):
        ids = [claim_id for claim_id, _ in claim_markers(line)]
        fabricated += sum(int(n) > len(records) for n in _NUMBERS.findall(line))
        if not ids:
            continue
        fabricated += sum(i not in by_id for i in ids)
        quotes = [e.quote for i in ids if i in by_id for e in by_id[i].evidence]
        quotes += [titles.get(s, "") for i in ids if i in by_id for s in by_id[i].source_ids]
        checked += 1
        supported += grounded(statement_text(line), quotes).supported
    return checked, supported, fabricated
