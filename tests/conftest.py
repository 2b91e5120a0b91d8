"""Every test runs with its own ASSAY_HOME, no provider keys, and relaxed fsync."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

_KEY_SUFFIXES = ("_API_KEY", "_KEY", "_TOKEN", "_SECRET")


@pytest.fixture(autouse=True)
def isolated_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    home = tmp_path / "assay-home"
    home.mkdir()
    for name in list(os.environ):
        if name.startswith("ASSAY_") or name.upper().endswith(_KEY_SUFFIXES):
            monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("ASSAY_HOME", str(home))
    monkeypatch.setenv("ASSAY_FSYNC", "never")
    yield home
