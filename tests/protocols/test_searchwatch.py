"""A run whose every search answers with nothing ends, failed, with the reason and what to
try; it never loops (a provider stub that always answers ``[]``)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from assay.cli import app
from assay.gather import session
from assay.gather.search.base import SearchResult

TOPIC = "How tall is the Halvorsen Lighthouse?"


class EmptySearch:
    name = "empty"

    def __init__(self) -> None:
        self.calls = 0

    async def search(self, queries: list[str], **options: Any) -> list[SearchResult]:
        self.calls += 1
        return []


@pytest.fixture
def empty(monkeypatch: pytest.MonkeyPatch) -> EmptySearch:
    stub = EmptySearch()
    monkeypatch.setattr(session, "build_search_provider", lambda *args, **kwargs: stub)
    return stub


@pytest.mark.parametrize("command", ["research", "ask"])
def test_a_run_whose_searches_all_come_back_empty_ends_with_the_reason(
    command: str, empty: EmptySearch, isolated_home: Path
) -> None:
    result = CliRunner().invoke(app, [command, TOPIC, "--quiet", "--budget-time", "60"])
    assert result.exit_code == 1, result.output
    assert "every search came back empty" in result.output
    assert 0 < empty.calls <= 10  # a few rounds, then the end: never a loop
    [run] = (isolated_home / "runs").iterdir()
    info = json.loads((run / "run.json").read_text())
    assert info["status"] == "failed" and "nothing to read" in info["reason"]


def test_an_empty_search_beside_a_page_read_is_not_a_failure() -> None:
    from assay.events import ToolOpenUrl, ToolSearch
    from assay.protocols.searchwatch import SearchWatch

    watch = SearchWatch()
    watch(ToolSearch(queries=["a", "b", "c"], result_count=0))
    assert watch.failure() is not None
    watch(ToolOpenUrl(url="http://a.test/", title=None, snapshot="s"))
    assert watch.failure() is None


def test_the_stub_is_really_empty(empty: EmptySearch) -> None:
    assert asyncio.run(empty.search(["q"], max_results=3)) == []
