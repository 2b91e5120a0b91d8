"""A check's verdict (the FEVER label of a claim's status): DISPUTED is reachable."""

from __future__ import annotations

from pathlib import Path

import pytest

from assay.batch.check import verdict
from assay.evaluation.grade import VERDICT_LABELS
from tests.claims.test_engine import REFUTE, SUPPORT, UNRELATED, make_run, verify


@pytest.mark.parametrize(
    ("pages", "label"),
    [
        ([SUPPORT, REFUTE], "DISPUTED"),
        ([REFUTE, UNRELATED], "REFUTES"),
        ([SUPPORT, UNRELATED], "SUPPORTS"),
        ([UNRELATED], "NOT_ENOUGH_INFO"),
    ],
    ids=["one-supports-another-refutes", "refuted-only", "supported-only", "nothing"],
)
def test_sources_that_disagree_make_a_disputed_claim(
    isolated_home: Path, pages: list[str], label: str
) -> None:
    run = make_run(isolated_home, [(f"http://s{n}.test/1", t) for n, t in enumerate(pages)])
    claim = verify(run)
    assert VERDICT_LABELS[verdict(claim)] == label
