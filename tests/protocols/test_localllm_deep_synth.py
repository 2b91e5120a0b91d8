"""One deep run and one synth run with the REAL local model (marked ``localllm``), over a
tiny lab of their own: small enough for a 1.5B model at ~10 tokens/s."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import pytest

from assay.config import Settings, load_settings
from assay.gather.documents import Document
from assay.lab import Lab, serve_lab
from assay.protocols.deep import deep_research_async, output, worker
from assay.protocols.synth import parse_roster, synth_async
from tests.localllm_fixtures import BASE_URL, MODEL_NAME

pytestmark = [pytest.mark.localllm, pytest.mark.usefixtures("allow_requests")]

PAGES = [
    "The harbour board surveyed the north pier in spring. The Brenna signal tower is 41 "
    "metres tall. It was completed in 1874.",
    "Engineers climbed the structure last year. The Brenna signal tower is 41 metres tall. "
    "The Brenna signal tower was completed in 1874 by the harbour board.",
]


@pytest.fixture(scope="module")
def small_lab() -> Iterator[Lab]:
    docs = [Document(doc_id=f"p{n}", title=f"Brenna notes {n}", text=t, url=None)
            for n, t in enumerate(PAGES)]  # fmt: skip
    with serve_lab(docs, sites=2, faults=False, first_address="127.0.0.90") as running:
        yield running


def _settings(lab: Lab, home: Path) -> Settings:
    return load_settings(
        home=home, search="searxng", searxng_url=lab.sites[0], allow_hosts=["127.0.0.0/8"],
        model=f"openai:{MODEL_NAME}", base_url=BASE_URL,
    )  # fmt: skip


def test_a_deep_run_with_the_local_model(
    small_lab: Lab, isolated_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(worker, "MAX_SOURCES", 2)
    result = asyncio.run(
        deep_research_async(
            "When was the Brenna signal tower completed?",
            settings=_settings(small_lab, isolated_home), max_directions=1, output=tmp_path,
        )
    )  # fmt: skip
    assert result.status == "done" and result.model is not None
    assert all(d["score"] is not None for d in result.directions)
    text = Path(result.report).read_text()
    assert text.split("## Executive summary", 1)[1].lstrip().startswith("**Answer:**")
    assert output.check_integrity(Path(result.report)) == []


def test_a_synth_run_with_the_local_model(small_lab: Lab, isolated_home: Path) -> None:
    roster = parse_roster([
        {"name": "CC", "role": "MANAGER"},
        {"name": "A", "role": "SEARCHER", "can_search": True, "search_tool": "searxng",
         "searxng_url": small_lab.sites[0]},
        {"name": "B", "role": "SEARCHER", "can_search": True, "search_tool": "searxng",
         "searxng_url": small_lab.sites[1]},
    ])  # fmt: skip
    out = isolated_home / "synth.md"
    result = asyncio.run(
        synth_async(
            "When was the Brenna signal tower completed?", roster=roster, output=out,
            settings=_settings(small_lab, isolated_home),
        )
    )  # fmt: skip
    assert result.signal == "[DONE]", result.reason
    assert set(result.matrix) == {"A → B", "B → A"}
    assert "## Phase 3: Best and Verified Response" in out.read_text()
