"""The suite's system temp dir (tests/conftest.py ``temp_dir``): every test's own, under
pytest's base temp dir, so what a test leaves there does not pile up in /tmp. A deep run
that stops before its report passed the integrity check keeps its temp dir (by design:
deep-research.txt deletes it "only after step 2 passes"); in a test it is kept there."""

from __future__ import annotations

import asyncio
import os
import tempfile
from pathlib import Path

import pytest

from assay.config import load_settings
from assay.errors import BudgetExhausted
from assay.lab import Lab
from assay.protocols.deep import deep_research_async


def _own_temp_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The system temp dir this test sees, checked to be under pytest's base temp dir."""
    found = Path(tempfile.gettempdir()).resolve()
    assert tmp_path_factory.getbasetemp().resolve() in found.parents
    return found


def test_each_test_has_its_own_system_temp_dir(tmp_path_factory: pytest.TempPathFactory) -> None:
    own = _own_temp_dir(tmp_path_factory)
    assert Path(os.environ["TMPDIR"]).resolve() == own
    assert not list(own.iterdir())  # fresh for this test
    made = Path(tempfile.mkdtemp(prefix="deep-research-"))
    assert made.parent.resolve() == own


def test_a_deep_run_stopped_by_its_budget_keeps_its_temp_dir_in_the_tests_own(
    lab: Lab, isolated_home: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    own = _own_temp_dir(tmp_path_factory)
    settings = load_settings(
        home=isolated_home, search="searxng", searxng_url=lab.sites[0],
        allow_hosts=["127.0.0.0/8"], budget_fetches=1,
    )  # fmt: skip
    with pytest.raises(BudgetExhausted):
        asyncio.run(deep_research_async("Halvorsen Lighthouse", settings=settings,
                                        max_directions=1, echo=lambda _: None))  # fmt: skip
    kept = list(own.glob("deep-research-*"))
    assert len(kept) == 1 and kept[0].is_dir()  # (other processes may write to /tmp at
    # the same time, so that it gained nothing cannot be asserted here)
