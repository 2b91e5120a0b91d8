"""DuckDuckGo provider with the ddgs library's DDGS class replaced (no network)."""

from __future__ import annotations

import inspect
import sys
import threading
from pathlib import Path
from typing import Any, ClassVar

import ddgs
import httpx2
import pytest
from ddgs.exceptions import DDGSException, RatelimitException, TimeoutException

from assay.config import load_settings
from assay.errors import ConfigError, ProviderError
from assay.gather.search import duckduckgo
from assay.keys import KeyStore

pytestmark = pytest.mark.anyio

REAL_DDGS = ddgs.DDGS


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


class FakeDDGS:
    """Stands in for ddgs.DDGS: same constructor and ``text`` call, rows shaped like TextResult."""

    calls: ClassVar[list[dict[str, Any]]] = []
    raise_error: ClassVar[BaseException | None] = None
    rows: ClassVar[int] = 8

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        inspect.signature(REAL_DDGS.__init__).bind(self, *args, **kwargs)
        self.timeout = kwargs.get("timeout")

    def text(self, query: str, **kwargs: Any) -> list[dict[str, Any]]:
        # the keywords must be ones the real DDGS.text accepts
        inspect.signature(REAL_DDGS._search_sync).bind(self, "text", query, **kwargs)
        FakeDDGS.calls.append(
            {
                "query": query,
                "thread": threading.current_thread(),
                "timeout": self.timeout,
                **kwargs,
            }
        )
        if FakeDDGS.raise_error is not None:
            raise FakeDDGS.raise_error
        count = min(kwargs.get("max_results") or 10, FakeDDGS.rows)
        return [
            {
                "title": f"{query} result {n}",
                "href": f"https://duck{n}.example.com/{n}",
                "body": f"Body {n} of {query}",
            }
            for n in range(1, count + 1)
        ]


@pytest.fixture(autouse=True)
def fake_ddgs(monkeypatch: pytest.MonkeyPatch) -> type[FakeDDGS]:
    monkeypatch.setattr(ddgs, "DDGS", FakeDDGS)
    FakeDDGS.calls = []
    FakeDDGS.raise_error = None
    FakeDDGS.rows = 8
    return FakeDDGS


async def _search(queries: list[str], **kwargs: Any) -> list[Any]:
    async with httpx2.AsyncClient() as http:
        provider = duckduckgo.create(load_settings(), http=http, keys=KeyStore(Path()))
        kwargs.setdefault("max_results", 5)
        return await provider.search(queries, **kwargs)


async def test_results_come_from_ddgs_text_in_a_worker_thread() -> None:
    results = await _search(["rust async"], max_results=3)
    (call,) = FakeDDGS.calls
    assert call["query"] == "rust async"
    assert call["max_results"] == 3
    assert call["timelimit"] is None
    assert call["thread"] is not threading.main_thread()
    assert [(r.rank, r.url, r.title, r.snippet) for r in results] == [
        (n, f"https://duck{n}.example.com/{n}", f"rust async result {n}", f"Body {n} of rust async")
        for n in range(1, 4)
    ]
    assert {r.provider for r in results} == {"duckduckgo"}


@pytest.mark.parametrize(
    ("time_range", "timelimit"), [("day", "d"), ("week", "w"), ("month", "m"), ("year", "y")]
)
async def test_time_range_becomes_timelimit(time_range: str, timelimit: str) -> None:
    await _search(["q"], time_range=time_range)
    assert FakeDDGS.calls[0]["timelimit"] == timelimit


async def test_no_results_found_is_an_empty_answer() -> None:
    FakeDDGS.raise_error = DDGSException("No results found.")
    assert await _search(["nothing at all"]) == []


async def test_rate_limit() -> None:
    FakeDDGS.raise_error = RatelimitException("202 Ratelimit")
    with pytest.raises(ProviderError, match="duckduckgo: rate limited"):
        await _search(["q"])


async def test_timeout() -> None:
    FakeDDGS.raise_error = TimeoutException("timed out")
    with pytest.raises(ProviderError, match="timed out"):
        await _search(["q"])


async def test_other_ddgs_failure() -> None:
    FakeDDGS.raise_error = DDGSException("engine exploded")
    with pytest.raises(ProviderError, match="engine exploded"):
        await _search(["q"])


def test_missing_ddgs_package_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "ddgs", None)
    with pytest.raises(ConfigError, match=r"pip install 'assay\[ddgs\]'"):
        duckduckgo.create(load_settings(), http=httpx2.AsyncClient(), keys=KeyStore(Path()))
