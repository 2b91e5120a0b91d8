"""Run ids and file names from requests, resolved only through the store's safe paths.

A request names a run by its exact id (no prefixes: a URL is not typed by hand) and a
source by its id; both go through ``safe_child`` before any file is opened. Whatever the
id, an id that names no run is answered the same way: "no run", without a path.
"""

from __future__ import annotations

from assay.errors import RunNotFoundError, UnsafePathError
from assay.store.paths import safe_child
from assay.store.runs import RUN_FILE, Run, RunStore
from assay.store.sources import SourceLedger, SourceRecord


def open_run(store: RunStore, run_id: str) -> Run:
    """The run whose id is exactly ``run_id``, else RunNotFoundError: for an id that would
    leave the store (``..``, a symlink out of it) or that no file system could hold too."""
    missing = RunNotFoundError(f"no run {run_id[:80]!r}")
    try:
        directory = safe_child(store.root, run_id)
        exists = (directory / RUN_FILE).is_file()
    except (UnsafePathError, OSError):  # its message names the store's path
        raise missing from None
    if not exists:
        raise missing
    return store.open(directory.name)


def find_source(run: Run, source_id: str) -> SourceRecord:
    for record in SourceLedger(run.dir).records():
        if record.id == source_id:
            return record
    raise RunNotFoundError(f"run {run.id} has no source {source_id!r}")


def read_snapshot(run: Run, source: SourceRecord) -> str:
    """The snapshot's text (without its front matter), as saved."""
    return SourceLedger(run.dir).read_snapshot(source)
