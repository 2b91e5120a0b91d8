"""Score the reports themselves: the answer a reader finds in report.md, and whether each
report sentence is supported by the quotes it cites.

Reads the rows ``qa_hotpot.py --out`` wrote (each names its question, gold answer, type
and report). For every report: exact match and token F1 of the **Answer:** line against
the gold answer; the share of the report's sentences that carry a claim marker and whose
claim's quotes support them (``assay.claims.grounding.grounded``; a claim's page title
counts with its quotes, since a claim names its page's subject); and the fabricated
citations — markers naming a claim the ledger lacks, and ``[n]`` past the source list.

    python benchmarks/qa_hotpot.py --limit 50 --out /tmp/hotpot.json
    python benchmarks/qa_report.py /tmp/hotpot.json
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

from assay.claims.grounding import grounded
from assay.report.markers import claim_markers
from assay.store.claims import ClaimLedger
from assay.store.sources import SourceLedger

sys.path.insert(0, str(Path(__file__).resolve().parent))
from qa_hotpot import normalize, token_f1

_MARKER = re.compile(r"\((claim_\d+): [a-z_]+\)")
_NUMBERS = re.compile(r"\[(\d+)\]")


def report_answer(report: str) -> str:
    """The answer as a reader sees it: the **Answer:** line without its evidence."""
    for line in report.splitlines():
        if line.startswith("**Answer:**"):
            text = line.removeprefix("**Answer:**").strip()
            if text.startswith("No direct answer found"):
                return ""
            return _MARKER.sub("", text.split(" — resting on:")[0]).strip()
    return ""


def sentence_support(run_dir: Path, report: str) -> tuple[int, int, int]:
    """(sentences with a marker, of them supported by their claims' quotes, fabricated)."""
    claims = {c.id: c for c in ClaimLedger(run_dir).claims()}
    records = SourceLedger(run_dir).records()
    titles = {r.id: r.title or "" for r in records}
    sources = len(records)
    checked = supported = fabricated = 0
    for line in report.split("## Sources")[0].splitlines():
        ids = [claim_id for claim_id, _ in claim_markers(line)]
        fabricated += sum(int(n) > sources for n in _NUMBERS.findall(line))
        if not ids:
            continue
        fabricated += sum(i not in claims for i in ids)
        quotes = [e.quote for i in ids if i in claims for e in claims[i].evidence]
        quotes += [titles.get(s, "") for i in ids if i in claims for s in claims[i].source_ids]
        sentence = _NUMBERS.sub("", _MARKER.sub("", line)).strip(" -*")
        sentence = sentence.removeprefix("*Answer:**").split(" — resting on:")[-1]
        checked += 1
        supported += grounded(sentence, quotes).supported
    return checked, supported, fabricated


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("rows", type=Path, help="the JSON file qa_hotpot.py --out wrote")
    args = parser.parse_args()
    rows = [r for r in json.loads(args.rows.read_text()) if r.get("report")]
    scored = []
    for row in rows:
        path = Path(row["report"])
        report = path.read_text(encoding="utf-8")
        answer = report_answer(report)
        checked, supported, fabricated = sentence_support(path.parent, report)
        scored.append({
            "type": row["type"],
            "em": float(normalize(answer) == normalize(row["gold"])),
            "f1": token_f1(answer, row["gold"]),
            "checked": checked, "supported": supported, "fabricated": fabricated,
        })  # fmt: skip
    groups = {"all": scored} | {
        t: [r for r in scored if r["type"] == t] for t in sorted({r["type"] for r in scored})
    }
    for name, group in groups.items():
        count = len(group) or 1
        checked = sum(r["checked"] for r in group)
        supported = sum(r["supported"] for r in group) / (checked or 1)
        print(f"{name:<11} {len(group):>3} reports: answer EM "
              f"{sum(r['em'] for r in group) / count:.3f}  F1 "
              f"{sum(r['f1'] for r in group) / count:.3f}  sentences supported by their "
              f"citations {supported:.3f} ({checked})  fabricated citations "
              f"{sum(r['fabricated'] for r in group)}")  # fmt: skip


if __name__ == "__main__":
    main()
