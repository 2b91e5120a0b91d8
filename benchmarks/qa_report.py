"""Score the reports themselves: the answer a reader finds in report.md, and whether each
report sentence is supported by the quotes it cites.

Reads the eval folder ``qa_hotpot.py --out`` (or ``assay eval --out``) wrote. For every
report: exact match and token F1 of the **Answer:** line against the gold answer; the share
of the report's sentences that carry a claim marker and whose claim's quotes support them;
and the fabricated citations — markers naming a claim the ledger lacks, and ``[n]`` past the
source list. The checks are ``assay.evaluation.integrity`` and ``assay.report.reading``.

    python benchmarks/qa_hotpot.py --limit 50 --out /tmp/hotpot
    python benchmarks/qa_report.py /tmp/hotpot
"""

from __future__ import annotations

import argparse
from pathlib import Path

from assay.evaluation.compare import load_eval
from assay.evaluation.integrity import sentence_support
from assay.evaluation.scoring import best_f1, exact_match
from assay.report.reading import report_answer
from assay.store.claims import ClaimLedger
from assay.store.sources import SourceLedger


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("eval", type=Path, help="the eval folder (or its eval.json)")
    args = parser.parse_args()
    rows = [r for r in load_eval(args.eval)["rows"] if r.get("report")]
    scored = []
    for row in rows:
        path = Path(row["report"])
        report = path.read_text(encoding="utf-8")
        answer = report_answer(report)
        claims, sources = ClaimLedger(path.parent).claims(), SourceLedger(path.parent).records()
        checked, supported, fabricated = sentence_support(report, claims, sources)
        scored.append({
            "type": row["type"],
            "em": exact_match(answer, row["gold"]),
            "f1": best_f1(answer, row["gold"]),
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
