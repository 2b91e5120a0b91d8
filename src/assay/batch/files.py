"""A batch's state on disk: the results JSONL and the journal of runs, both append-only.

``results.jsonl`` gets one ``ResultRow`` the moment a run ends (the last row of an id wins
when a failed question was retried). ``results.jsonl.runs`` records which run each id got
as soon as the run starts, so a re-run (or another worker, after a crash) resumes that run
from its files instead of starting over. Every append is one ``write`` of a whole line under
an exclusive ``flock``, so several processes on one filesystem may share a batch.
"""

from __future__ import annotations

import fcntl
import json
import os
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field, ValidationError

JOURNAL_SUFFIX = ".runs"
FINISHED = ("done",)


class ResultRow(BaseModel):
    """What one question of a batch came to."""

    id: str
    line: int = 0
    protocol: str = ""
    run_id: str | None = None
    run_dir: str | None = None
    status: str  # done, failed, interrupted, invalid (a bad input line)
    reason: str | None = None
    answer: str = ""
    report: str | None = None
    claims: dict[str, int] = Field(default_factory=dict)
    usage: dict[str, Any] = Field(default_factory=dict)
    wall_seconds: float = 0.0
    resumed: bool = False

    @property
    def tokens(self) -> int:
        return int(self.usage.get("input_tokens", 0)) + int(self.usage.get("output_tokens", 0))


class BatchFiles:
    """The results file and its journal (``<results>.runs``) beside it."""

    def __init__(self, results: Path) -> None:
        self.results = results
        self.journal = results.with_name(results.name + JOURNAL_SUFFIX)

    def count(self) -> int:
        """How many rows the results file holds (``rows(after=…)`` reads only newer ones)."""
        return len(_lines(self.results))

    def rows(self, *, after: int = 0) -> dict[str, ResultRow]:
        """The latest row of every id in the results file (past its first ``after`` rows)."""
        latest: dict[str, ResultRow] = {}
        for data in _lines(self.results)[after:]:
            try:
                row = ResultRow.model_validate(data)
            except ValidationError:
                continue  # a line cut by a crash mid-write: that question runs again
            latest[row.id] = row
        return latest

    def finished_ids(self) -> set[str]:
        return {i for i, row in self.rows().items() if row.status in FINISHED}

    def run_ids(self) -> dict[str, str]:
        """The run each id got most recently."""
        return {str(d["id"]): str(d["run_id"]) for d in _lines(self.journal) if "run_id" in d}

    def add_result(self, row: ResultRow) -> None:
        _append(self.results, row.model_dump(mode="json"))

    def record_run(self, job_id: str, run_id: str) -> None:
        _append(self.journal, {"id": job_id, "run_id": run_id})


def _lines(path: Path) -> list[dict[str, Any]]:
    if not path.is_file():
        return []
    out = []
    for text in path.read_text(encoding="utf-8").splitlines():
        try:
            data = json.loads(text)
        except json.JSONDecodeError:
            continue
        if isinstance(data, dict):
            out.append(data)
    return out


def _append(path: Path, data: dict[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    line = (json.dumps(data, ensure_ascii=False) + "\n").encode("utf-8")
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        os.write(fd, line)
        os.fsync(fd)
    finally:
        os.close(fd)
