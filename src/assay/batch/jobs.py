"""The questions file: one JSON object per line, ``{"id", "question", ...}``.

Known keys steer the protocol (``sources``; ``keywords``, ``urls``, ``depth``, ``format``;
``max_directions``); any other key (a gold answer, a type) is kept in ``extra`` for whoever
grades the batch. A line that is not such an object (not UTF-8, not JSON, the wrong shape)
becomes a ``BadLine`` naming its number and what is wrong, and the other lines still run.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from assay.errors import BadInputError
from assay.input_lines import BadLine as BadLine  # re-exported: assay.batch names it
from assay.input_lines import json_lines

Protocol = Literal["research", "ask", "web-research", "deep", "check"]
PROTOCOLS: tuple[str, ...] = ("research", "ask", "web-research", "deep", "check")


class BatchJob(BaseModel):
    """One question of a batch, as its line gave it."""

    model_config = ConfigDict(extra="allow", frozen=True)

    id: str = Field(min_length=1, max_length=200)
    question: str = Field(min_length=1, max_length=4000)
    line: int = 0
    sources: int | None = Field(default=None, ge=1, le=20)
    keywords: list[str] = Field(default_factory=list)
    urls: list[str] = Field(default_factory=list)
    depth: Literal["shallow", "medium", "deep"] = "medium"
    format: Literal["summary", "report", "structured"] = "summary"
    max_directions: int | None = Field(default=None, ge=1, le=6)

    @field_validator("id", mode="before")
    @classmethod
    def _id_as_text(cls, value: Any) -> Any:
        return str(value) if isinstance(value, int) else value

    @property
    def extra(self) -> dict[str, Any]:
        return dict(self.model_extra or {})


def read_jobs(path: Path) -> tuple[list[BatchJob], list[BadLine]]:
    """Every line of ``path`` as a job or a bad line; blank lines are skipped."""
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise BadInputError(f"{path}: cannot read: {exc.strerror or exc}") from None
    jobs: list[BatchJob] = []
    bad: list[BadLine] = []
    seen: dict[str, int] = {}
    for line in json_lines(data):
        if isinstance(line, BadLine):
            bad.append(line)
            continue
        number, value = line
        job_or_error = _job(value, number)
        if isinstance(job_or_error, str):
            bad.append(BadLine(number, job_or_error))
        elif job_or_error.id in seen:
            message = f"id {job_or_error.id!r} already used on line {seen[job_or_error.id]}"
            bad.append(BadLine(number, message))
        else:
            seen[job_or_error.id] = number
            jobs.append(job_or_error)
    return jobs, bad


def _job(data: Any, number: int) -> BatchJob | str:
    if not isinstance(data, dict):
        return f"expected a JSON object, got {type(data).__name__}"
    try:
        return BatchJob.model_validate({**data, "line": number})
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(part) for part in first["loc"]) or "line"
        return f"{where}: {first['msg']}"
