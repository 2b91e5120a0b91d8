"""The ``local`` search provider over $ASSAY_HOME/index.sqlite."""

from __future__ import annotations

import asyncio
from pathlib import Path

import httpx2
import pytest

from assay.config import load_settings
from assay.errors import ProviderError
from assay.gather.documents import Document
from assay.gather.index import LocalIndex
from assay.gather.search import local
from assay.gather.search.base import SearchProvider, SearchResult
from assay.keys import KeyStore
from assay.plugins import SEARCH_GROUP, plugin_names


def _search(home: Path, queries: list[str], max_results: int = 5) -> list[SearchResult]:
    settings = load_settings(home=home)

    async def run() -> list[SearchResult]:
        async with httpx2.AsyncClient() as http:
            provider = local.create(settings, http=http, keys=KeyStore(home))
            assert isinstance(provider, SearchProvider) and provider.name == "local"
            return await provider.search(queries, max_results=max_results, time_range="week")

    return asyncio.run(run())


def _fill(home: Path) -> None:
    with LocalIndex(home / "index.sqlite") as index:
        index.add_documents(
            [
                Document("bee1", "Bees", "Bees make honey from nectar.  Bees   dance."),
                Document("bee2", "Hives", "A hive holds bees.", "https://hives.test/a"),
                Document("tide", "Tides", "The moon moves the tides."),
            ]
        )


def test_results_carry_index_or_own_urls(isolated_home: Path) -> None:
    _fill(isolated_home)
    results = _search(isolated_home, ["bees", "moon"])
    assert [(r.query, r.url, r.rank) for r in results] == [
        ("bees", "index://bee1", 1),
        ("bees", "https://hives.test/a", 2),
        ("moon", "index://tide", 1),
    ]
    assert all(r.provider == "local" and r.published_date is None for r in results)
    assert results[0].title == "Bees" and "  " not in results[0].snippet
    assert len(_search(isolated_home, ["bees"], max_results=1)) == 1


def test_hostile_and_empty_queries_give_no_error(isolated_home: Path) -> None:
    _fill(isolated_home)
    assert _search(isolated_home, ['"', "NEAR(", "", "*"]) == []


def test_missing_index_says_how_to_build_one(isolated_home: Path) -> None:
    with pytest.raises(ProviderError, match="assay index add"):
        _search(isolated_home, ["bees"])
    assert not (isolated_home / "index.sqlite").exists()


@pytest.mark.skipif("local" not in plugin_names(SEARCH_GROUP), reason="entry point not wired")
def test_registered_as_the_local_plugin(isolated_home: Path) -> None:
    from assay.gather.search.registry import build_search_provider

    _fill(isolated_home)

    async def run() -> str:
        async with httpx2.AsyncClient() as http:
            settings = load_settings(home=isolated_home)
            provider = build_search_provider(settings, http=http, keys=KeyStore(isolated_home))
            return provider.name

    assert asyncio.run(run()) == "local"


def test_the_provider_finds_by_meaning_and_says_when_vectors_are_missing(
    isolated_home: Path, caplog: pytest.LogCaptureFixture
) -> None:
    from assay.reading.embed import default_embedder

    with LocalIndex(isolated_home / "index.sqlite", embedder=default_embedder()) as index:
        index.add_documents([Document("cat", "Cats", "Cats are small carnivores that hunt mice.")])
    results = _search(isolated_home, ["how do felines behave"])
    assert [r.url for r in results] == ["index://cat"]
    assert not caplog.records

    with LocalIndex(isolated_home / "index.sqlite") as index:  # no embedder: words only
        index.add_documents([Document("tide", "Tides", "The moon moves the tides.")])
    with caplog.at_level("WARNING"):
        _search(isolated_home, ["moon"])
        _search(isolated_home, ["moon"])
    assert [r.getMessage() for r in caplog.records if "have no vector" in r.getMessage()] == [
        f"{isolated_home / 'index.sqlite'}: 1 of 2 passages have no vector yet and are searched "
        "by their words only; `assay index embed` makes them"
    ]  # once per process
