"""Batch rows graded against the dataset: one eval row per item, and the summaries."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from assay.batch import ResultRow
from assay.evaluation.citations import CitationFigures, citation_figures
from assay.evaluation.dataset import LABELS, Dataset, EvalItem
from assay.evaluation.integrity import Integrity, audit_run
from assay.evaluation.scoring import best_f1, exact_match, grade, label_scores
from assay.store.sources import SourceLedger

# A check run's verdict as a FEVER label (see assay.batch.check).
VERDICT_LABELS = {"supported": "SUPPORTS", "refuted": "REFUTES", "disputed": "DISPUTED",
                  "not enough info": "NOT_ENOUGH_INFO"}  # fmt: skip


def grade_rows(dataset: Dataset, rows: dict[str, ResultRow]) -> list[dict[str, Any]]:
    """An eval row for every item (an item without a batch row counts as failed)."""
    return [_graded(dataset, item, rows.get(item.id)) for item in dataset.items]


def _graded(dataset: Dataset, item: EvalItem, row: ResultRow | None) -> dict[str, Any]:
    row = row or ResultRow(id=item.id, status="failed", reason="no result")
    run_dir = Path(row.run_dir) if row.run_dir else None
    report = Path(row.report).read_text(encoding="utf-8") if row.report else ""
    integrity = audit_run(run_dir, report) if run_dir is not None else Integrity()
    citations = citation_figures(run_dir, report) if run_dir is not None else CitationFigures()
    base: dict[str, Any] = {
        "id": item.id, "type": item.type, "text": item.text, "answer": row.answer,
        "report": row.report,
        "status": row.status, "reason": row.reason, "run_id": row.run_id,
        "tokens": row.tokens, "model_calls": int(row.usage.get("model_calls", 0)),
        "wall_seconds": row.wall_seconds, **integrity.to_json(), **citations.to_json(),
    }  # fmt: skip
    if dataset.kind == "claims":
        predicted = VERDICT_LABELS.get(row.answer, "NOT_ENOUGH_INFO")
        return base | {"gold": item.label, "predicted": predicted,
                       "score": float(predicted == item.label)}  # fmt: skip
    f1 = best_f1(row.answer, item.answers)
    return base | {
        "gold": list(item.answers),
        "em": exact_match(row.answer, item.answers),
        "f1": f1,
        "score": f1,
        "grade": grade(row.answer, item.answers),
        "gold_recall": _gold_recall(item, run_dir),
    }


def _gold_recall(item: EvalItem, run_dir: Path | None) -> float | None:
    if not item.gold_titles:
        return None
    if run_dir is None:
        return 0.0
    titles = {r.title for r in SourceLedger(run_dir).records()}
    return len(item.gold_titles & titles) / len(item.gold_titles)


def summarize(kind: str, rows: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """The figures of ``rows``: answer or label scores, integrity, cost."""
    count = len(rows) or 1

    def mean(key: str) -> float:
        values = [r[key] for r in rows if r.get(key) is not None]
        return sum(values) / len(values) if values else 0.0

    def total(key: str) -> int:
        return int(sum(r.get(key) or 0 for r in rows))

    sentences = total("sentences")
    cited_pairs, cited = total("citations"), total("urls_cited_distinct")
    out: dict[str, Any] = {
        "items": len(rows),
        "failed": sum(r["status"] != "done" for r in rows),
        "cited_urls": total("cited_urls"),
        "fabricated_urls": total("fabricated_urls"),
        "quotes": total("quotes"),
        "quotes_missing": total("quotes_missing"),
        "sentences": sentences,
        "sentences_supported": total("sentences_supported") / sentences if sentences else None,
        "fabricated_markers": total("fabricated_markers"),
        # citation precision (evaluation/citations.py): over all pairs, and a run's mean
        "citations": cited_pairs,
        "effective_citations": total("citations_supported"),
        "effective_citations_mean": total("citations_supported") / count,
        "citation_precision": total("citations_supported") / cited_pairs if cited_pairs else None,
        "citation_precision_mean": _mean_of(rows, "citation_precision"),
        "urls_fetched_share": total("urls_fetched") / cited if cited else None,
        "tokens_total": total("tokens"),
        "tokens_mean": total("tokens") / count,
        "model_calls": total("model_calls"),
        "wall_mean": mean("wall_seconds"),
        # each item's own wall time, added up: more than the eval took when items overlap
        "item_seconds_total": sum(r["wall_seconds"] for r in rows),
    }
    if kind == "claims":
        pairs = [(str(r["gold"]), str(r["predicted"])) for r in rows]
        return out | label_scores(pairs, LABELS)
    grades = {g: sum(r["grade"] == g for r in rows) for g in
              ("correct", "incorrect", "not_attempted")}  # fmt: skip
    recall = [r["gold_recall"] for r in rows if r.get("gold_recall") is not None]
    return out | {
        "em": mean("em"),
        "f1": mean("f1"),
        "grades": grades,
        "correct": grades["correct"] / count,
        "gold_recall": sum(recall) / len(recall) if recall else None,
    }


def _mean_of(rows: Sequence[dict[str, Any]], key: str) -> float | None:
    """The mean of ``key`` over the rows that have a value (None when none has)."""
    values = [r[key] for r in rows if r.get(key) is not None]
    return sum(values) / len(values) if values else None


def by_type(kind: str, rows: Sequence[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    types = sorted({r["type"] for r in rows})
    return {t: summarize(kind, [r for r in rows if r["type"] == t]) for t in types}
