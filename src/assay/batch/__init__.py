"""Batches of runs: one run per question line, several at once, resumable, one result line each.

``read_jobs`` parses a questions JSONL (a bad line is reported by number, never dropped
silently); ``BatchFiles`` is the batch's state on disk (results JSONL and a journal of which
run each question got); ``run_job`` drives one question through the protocol's own entry
point (or resumes its run); ``run_batch`` runs many at once. ``assay batch`` and
``assay worker`` are thin shells over these.
"""

from assay.batch.driver import BatchEvents, run_batch
from assay.batch.execute import BatchSpec, run_job
from assay.batch.files import BatchFiles, ResultRow
from assay.batch.jobs import PROTOCOLS, BadLine, BatchJob, read_jobs

__all__ = [
    "PROTOCOLS",
    "BadLine",
    "BatchEvents",
    "BatchFiles",
    "BatchJob",
    "BatchSpec",
    "ResultRow",
    "read_jobs",
    "run_batch",
    "run_job",
]
