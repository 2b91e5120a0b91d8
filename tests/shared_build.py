"""Build an expensive read-only test input once per test session, not once per xdist worker.

A session-scoped fixture is session-scoped per test *process*: under ``pytest -n 4`` each
worker built the shared lab run and the web UI's four finished runs again (20–35 s each under
load). ``built_once`` is the pattern of pytest-xdist's docs ("making session-scoped fixtures
execute only once"): the first worker to ask builds the folder under the session's common
base temp dir, holding a file lock; the others wait on the lock and then read the folder.
Without xdist, the folder is simply built in this process's base temp dir.
"""

from __future__ import annotations

import fcntl
import os
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

DONE = ".built"
"""Written last: a folder without it is what a builder left when it failed."""


def built_once(
    tmp_path_factory: pytest.TempPathFactory, name: str, build: Callable[[Path], None]
) -> Path:
    """The folder ``name`` as ``build`` (given the empty folder) left it, built once per
    test session. Readers must not change it: other test processes read it too."""
    if os.environ.get("PYTEST_XDIST_WORKER") is None:
        folder = tmp_path_factory.mktemp(name)
        build(folder)
        return folder
    # Under xdist each worker's base temp dir is <session's>/popen-gwN: the parent is the
    # session's own, shared by its workers and by no other session.
    shared = tmp_path_factory.getbasetemp().parent / "built-once"
    shared.mkdir(exist_ok=True)
    folder = shared / name
    with (shared / f"{name}.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
        if not (folder / DONE).is_file():
            shutil.rmtree(folder, ignore_errors=True)
            folder.mkdir()
            build(folder)
            (folder / DONE).touch()
    return folder
