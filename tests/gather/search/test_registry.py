"""Choosing providers by name through entry points, and the plumbing providers share."""

from __future__ import annotations

from importlib.metadata import EntryPoint
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import httpx2
import pytest

from assay import plugins
from assay.config import Settings, load_settings
from assay.errors import ConfigError, MissingKeyError
from assay.gather.search import brave, common, mcp
from assay.gather.search.base import SearchProvider
from assay.gather.search.common import (
    Hit,
    answer_items,
    clean_text,
    error_detail,
    rank_hits,
)
from assay.gather.search.registry import build_search_provider, search_provider_names
from assay.keys import KeyStore
from tests.paths import ROOT

pytestmark = pytest.mark.anyio

BUILT_INS = {
    "searxng": "assay.gather.search.searxng:create",
    "brave": "assay.gather.search.brave:create",
    "tavily": "assay.gather.search.tavily:create",
    "exa": "assay.gather.search.exa:create",
    "serper": "assay.gather.search.serper:create",
    "duckduckgo": "assay.gather.search.duckduckgo:create",
    "mcp": "assay.gather.search.mcp:create",
    "arxiv": "assay.gather.search.arxiv:create",
    "openalex": "assay.gather.search.openalex:create",
    "semanticscholar": "assay.gather.search.semanticscholar:create",
    "pubmed": "assay.gather.search.pubmed:create",
}


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(autouse=True)
def entry_points(monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    """The entry points pyproject.toml is to declare, whatever the installed metadata says."""
    table = dict(BUILT_INS)

    def fake(*, group: str) -> list[EntryPoint]:
        if group != plugins.SEARCH_GROUP:
            return []
        return [EntryPoint(name=n, value=v, group=group) for n, v in table.items()]

    monkeypatch.setattr(plugins, "entry_points", fake)
    return table


async def test_every_built_in_loads_a_factory() -> None:
    assert search_provider_names() == sorted(BUILT_INS)
    for name in BUILT_INS:
        factory = plugins.load_plugin(plugins.SEARCH_GROUP, name)
        assert callable(factory)


async def test_build_by_name(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("BRAVE_API_KEY", "brave-key-123456")
    async with httpx2.AsyncClient() as http:
        provider = build_search_provider(
            load_settings(), http=http, keys=KeyStore(tmp_path), name="brave"
        )
    assert isinstance(provider, brave.BraveSearch)
    assert isinstance(provider, SearchProvider)
    assert provider.name == "brave"


async def test_build_from_settings(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    settings = load_settings(search="searxng", searxng_url="http://127.0.0.1:8888")
    async with httpx2.AsyncClient() as http:
        provider = build_search_provider(settings, http=http, keys=KeyStore(tmp_path))
    assert provider.name == "searxng"


async def test_names_are_case_insensitive(tmp_path: Path) -> None:
    async with httpx2.AsyncClient() as http:
        settings = load_settings(searxng_url="http://127.0.0.1:8888")
        provider = build_search_provider(
            settings, http=http, keys=KeyStore(tmp_path), name=" SearXNG "
        )
    assert provider.name == "searxng"


async def test_unknown_name_lists_the_known_ones(tmp_path: Path) -> None:
    async with httpx2.AsyncClient() as http:
        with pytest.raises(ConfigError) as caught:
            build_search_provider(load_settings(), http=http, keys=KeyStore(tmp_path), name="bing")
    assert "bing" in str(caught.value)
    assert (
        "arxiv, brave, duckduckgo, exa, mcp, openalex, pubmed, searxng, semanticscholar, "
        "serper, tavily" in str(caught.value)
    )


async def test_factory_errors_reach_the_caller(tmp_path: Path) -> None:
    async with httpx2.AsyncClient() as http:
        with pytest.raises(MissingKeyError, match="EXA_API_KEY"):
            build_search_provider(load_settings(), http=http, keys=KeyStore(tmp_path), name="exa")


async def test_a_plugin_that_builds_something_else_is_refused(
    entry_points: dict[str, str], tmp_path: Path
) -> None:
    entry_points["odd"] = f"{__name__}:_not_a_provider"
    async with httpx2.AsyncClient() as http:
        with pytest.raises(ConfigError, match="did not build a search provider"):
            build_search_provider(load_settings(), http=http, keys=KeyStore(tmp_path), name="odd")


def _not_a_provider(settings: Settings, *, http: Any, keys: Any) -> object:
    return object()


async def test_mcp_factory_reads_the_proposed_settings(tmp_path: Path) -> None:
    with_mcp: Any = SimpleNamespace(
        mcp_command="uvx some-search-server --flag", mcp_url=None, mcp_tool="web_search", mcp_env=[]
    )
    async with httpx2.AsyncClient() as http:
        provider = mcp.create(with_mcp, http=http, keys=KeyStore(tmp_path))
    assert provider.config.command == ("uvx", "some-search-server", "--flag")
    assert provider.config.tool == "web_search"


# --- shared plumbing -----------------------------------------------------------------


def test_clean_text() -> None:
    assert clean_text("  a \n\t b  ") == "a b"
    assert clean_text(None) == ""
    assert clean_text(42) == ""
    assert clean_text("abcdef", 4) == "abc…"


def test_rank_hits_keeps_http_urls_and_ranks_from_one() -> None:
    hits = [
        Hit("javascript:alert(1)", "bad", ""),
        Hit("http://[::1/broken", "bad", ""),
        Hit("https://", "no host", ""),
        Hit("https://a.example/", "A", "  snippet\nA ", "2024-01-01"),
        Hit(None, "no url", ""),
        Hit("http://b.example/x", None, None),
        Hit("https://c.example/", "C", "c"),
    ]
    results = rank_hits("q", "p", hits, max_results=2)
    assert [(r.rank, r.url, r.title, r.snippet, r.published_date) for r in results] == [
        (1, "https://a.example/", "A", "snippet A", "2024-01-01"),
        (2, "http://b.example/x", "http://b.example/x", "", None),
    ]
    assert {r.provider for r in results} == {"p"}


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        (
            {"detail": {"error": "Unauthorized: missing or invalid API key."}},
            "Unauthorized: missing",
        ),
        (
            {"error": {"code": "X", "detail": "The provided subscription token is invalid."}},
            "The provided",
        ),
        ({"message": "Not enough credits", "statusCode": 400}, "Not enough credits"),
        ({"requestId": "1", "error": "Invalid API key"}, "Invalid API key"),
        (None, "plain text body"),
    ],
)
def test_error_detail(body: Any, expected: str) -> None:
    assert error_detail(body, "plain text body").startswith(expected)


E, F = "https://e.example/", "https://f.example/"
LABELLED = """Title: H
URL: https://h.example/
Description: about h

Title: I
URL: https://i.example/
"""


@pytest.mark.parametrize(
    ("structured", "texts", "urls"),
    [
        ([{"url": "https://a.example/"}], [], ["https://a.example/"]),
        ({"results": [{"link": "https://b.example/"}]}, [], ["https://b.example/"]),
        ({"result": '[{"url": "https://c.example/"}]'}, [], ["https://c.example/"]),
        (None, ['{"results": [{"url": "https://d.example/", "title": "D"}]}'], ["https://d.example/"]),
        (None, ['{"url": "https://e.example/"}', '{"url": "https://f.example/"}'], [E, F]),
        ({"result": "no json here"}, ['[{"href": "https://g.example/"}]'], ["https://g.example/"]),
        (None, [LABELLED], ["https://h.example/", "https://i.example/"]),
        ({"results": []}, [], []),
    ],
)  # fmt: skip
def test_answer_items(structured: Any, texts: list[str], urls: list[str]) -> None:
    items = answer_items(structured, texts)
    assert items is not None
    assert [common.loose_hit(item).url for item in items] == urls


@pytest.mark.parametrize(
    ("structured", "texts"),
    [(None, ["just some prose"]), (None, []), ({"weird": 1}, ["[1, 2, 3]"])],
)
def test_unreadable_answers(structured: Any, texts: list[str]) -> None:
    assert answer_items(structured, texts) is None


def test_pyproject_declares_every_built_in() -> None:
    import tomllib

    pyproject = ROOT / "pyproject.toml"
    declared = tomllib.loads(pyproject.read_text())["project"]["entry-points"][plugins.SEARCH_GROUP]
    assert {n: v for n, v in declared.items() if n != "local"} == BUILT_INS
