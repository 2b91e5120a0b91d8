"""``assay eval``: a dataset through ``assay batch``, graded, written as eval.json + report.html.

The dataset's corpus (``--corpus``, or the passages its items carry) is served by the lab on
loopback for the duration, with its SearxNG-compatible search, so every question goes
through the real search → fetch → snapshot → claims path. Without a corpus the runs use the
search the settings name. The batch's results and journal live in the output folder, so an
interrupted eval resumes where it stopped — only an eval of the same dataset, protocol and
engine (``eval.request.json``): resumed by another, the folder would grade a mix of both.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from assay.__about__ import __version__
from assay.batch import BatchEvents, BatchFiles, BatchJob, BatchSpec, run_batch
from assay.batch.driver import pending
from assay.config import Settings
from assay.errors import BadInputError
from assay.evaluation.dataset import Dataset, load_dataset
from assay.evaluation.grade import by_type, grade_rows, summarize
from assay.evaluation.html import render_html
from assay.store.atomic import atomic_write_text

EVAL_FILE = "eval.json"
HTML_FILE = "report.html"
RESULTS_FILE = "results.jsonl"
REQUEST_FILE = "eval.request.json"
LAB_NET = "127.0.0.0/8"


@dataclass(frozen=True)
class EvalRequest:
    dataset: Path
    out_dir: Path
    settings: Settings
    limit: int | None = None
    offset: int = 0
    corpus: Path | None = None
    sites: int = 8
    concurrency: int = 2
    protocol: str | None = None  # default: research for questions, check for claims
    sources: int | None = None


def run_eval(request: EvalRequest, events: BatchEvents | None = None) -> dict[str, Any]:
    """Run and grade the dataset; returns what eval.json holds. Its summary's
    ``elapsed_seconds`` is how long this call took until the figures were final (the lab,
    the runs, the grading; not drawing report.html after; a resumed eval: its last part),
    beside ``item_seconds_total``, the items' own times added up."""
    started = time.monotonic()
    dataset = load_dataset(request.dataset, limit=request.limit, offset=request.offset)
    jobs = _jobs(dataset)
    protocol = request.protocol or ("check" if dataset.kind == "claims" else "research")
    request.out_dir.mkdir(parents=True, exist_ok=True)
    _claim_folder(request, protocol)
    files = BatchFiles(request.out_dir / RESULTS_FILE)
    with _served(request, dataset) as (settings, corpus_note):
        spec = BatchSpec(protocol=protocol, settings=settings, sources=request.sources)
        todo = pending(jobs, files)
        asyncio.run(run_batch(todo, spec, files, concurrency=request.concurrency, events=events))
    rows = grade_rows(dataset, files.rows())
    elapsed = {"elapsed_seconds": round(time.monotonic() - started, 3)}
    data = {
        "assay_version": __version__,
        "created_at": datetime.now(UTC).isoformat(timespec="seconds"),
        "dataset": str(request.dataset),
        "kind": dataset.kind,
        "offset": request.offset,
        "limit": request.limit,
        "protocol": protocol,
        "engine": request.settings.model or "extractive",
        "corpus": corpus_note,
        "bad_lines": list(dataset.problems),  # skipped: fixed, a re-run adds only them
        "summary": summarize(dataset.kind, rows) | elapsed,
        "by_type": by_type(dataset.kind, rows),
        "rows": rows,
    }
    (request.out_dir / EVAL_FILE).write_text(json.dumps(data, indent=1), encoding="utf-8")
    (request.out_dir / HTML_FILE).write_text(render_html(data), encoding="utf-8")
    return data


def _claim_folder(request: EvalRequest, protocol: str) -> None:
    """Record what the output folder's runs are made with, or refuse a folder whose runs
    another eval made (another dataset, protocol or engine)."""
    wanted = {
        "dataset": str(request.dataset.resolve()),
        "protocol": protocol,
        "engine": request.settings.model or "extractive",
    }
    path = request.out_dir / REQUEST_FILE
    if not path.exists():
        atomic_write_text(path, json.dumps(wanted, indent=1))
        return
    try:
        held = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise BadInputError(f"{path} cannot be read ({exc}); give another --out") from exc
    held = held if isinstance(held, dict) else {}
    differs = [f"{key} {held.get(key)!r}" for key in wanted if held.get(key) != wanted[key]]
    if differs:
        raise BadInputError(
            f"{request.out_dir} holds the runs of an eval with {', '.join(differs)}; "
            "give another --out (a resumed eval must be the same one)"
        )


def _jobs(dataset: Dataset) -> list[BatchJob]:
    jobs: list[BatchJob] = []
    seen: set[str] = set()
    for number, item in enumerate(dataset.items, start=1):
        if item.id in seen:
            raise BadInputError(f"dataset item {number}: id {item.id!r} is used twice")
        seen.add(item.id)
        jobs.append(BatchJob(id=item.id, question=item.text, line=number))
    return jobs


@contextmanager
def _served(request: EvalRequest, dataset: Dataset) -> Iterator[tuple[Settings, str]]:
    """The settings the runs use: searching the lab when there is a corpus to serve."""
    from assay.lab import serve_lab

    corpus: Any = request.corpus or dataset.corpus() or None
    if corpus is None:
        yield request.settings, f"none served; search: {request.settings.search}"
        return
    with serve_lab(corpus, sites=request.sites, faults=False) as lab:
        hosts = [*request.settings.allow_hosts, LAB_NET]
        settings = request.settings.model_copy(
            update={"search": "searxng", "searxng_url": lab.sites[0], "allow_hosts": hosts}
        )
        source = str(request.corpus) if request.corpus else "the dataset's inline passages"
        yield settings, f"{source}: {len(lab.pages)} pages on {request.sites} lab sites"
