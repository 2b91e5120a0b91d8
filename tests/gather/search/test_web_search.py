"""webSearch: 3-10 queries, run concurrently, failures kept per query, results deduplicated."""

from __future__ import annotations

import asyncio
import json
import time
from typing import Any

import httpx2
import pytest

from assay.errors import BadInputError, MissingKeyError, ProviderError
from assay.gather.search.base import SearchProvider, SearchResult, TimeRange
from assay.gather.search.web_search import WebSearchOutcome, normalise_queries, web_search

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


class ScriptedProvider:
    """A provider whose answers are scripted per query; it records how it was called."""

    name = "scripted"

    def __init__(
        self,
        answers: dict[str, list[str] | BaseException] | None = None,
        *,
        delay: float = 0.0,
    ) -> None:
        self.answers = answers or {}
        self.delay = delay
        self.calls: list[tuple[list[str], int, str | None]] = []
        self.running = 0
        self.most_running = 0

    async def search(
        self, queries: list[str], *, max_results: int, time_range: TimeRange | None = None
    ) -> list[SearchResult]:
        self.calls.append((list(queries), max_results, time_range))
        self.running += 1
        self.most_running = max(self.most_running, self.running)
        try:
            await asyncio.sleep(self.delay)
        finally:
            self.running -= 1
        results: list[SearchResult] = []
        for query in queries:
            answer = self.answers.get(query, [f"https://example.com/{query.replace(' ', '-')}"])
            if isinstance(answer, BaseException):
                raise answer
            results.extend(
                SearchResult(
                    query=query,
                    title=f"title of {url}",
                    url=url,
                    snippet=f"snippet of {url}",
                    provider=self.name,
                    rank=rank,
                    published_date="2025-01-02" if rank == 1 else None,
                )
                for rank, url in enumerate(answer, start=1)
            )
        return results


def test_scripted_provider_satisfies_the_protocol() -> None:
    assert isinstance(ScriptedProvider(), SearchProvider)


async def test_queries_run_concurrently() -> None:
    provider = ScriptedProvider(delay=0.3)
    queries = ["one", "two", "three", "four", "five"]
    started = time.perf_counter()
    outcome = await web_search(provider, queries, max_results=5)
    elapsed = time.perf_counter() - started
    assert elapsed < 0.6, f"5 queries of 0.3 s each took {elapsed:.2f} s"
    assert provider.most_running == 5
    assert sorted(call[0][0] for call in provider.calls) == sorted(queries)
    assert all(len(call[0]) == 1 for call in provider.calls)  # one search call per query
    assert outcome.queries == queries


async def test_json_shape_follows_the_agent_loop_spec() -> None:
    provider = ScriptedProvider(
        {
            "alpha": ["https://a.example/1", "https://a.example/2"],
            "beta": [],
            "gamma": ["https://g.example/"],
        }
    )
    outcome = await web_search(provider, ["alpha", "beta", "gamma"], max_results=5)
    assert outcome.to_json() == [
        {
            "query": "alpha",
            "results": [
                {
                    "title": "title of https://a.example/1",
                    "url": "https://a.example/1",
                    "snippet": "snippet of https://a.example/1",
                    "publishedDate": "2025-01-02",
                },
                {
                    "title": "title of https://a.example/2",
                    "url": "https://a.example/2",
                    "snippet": "snippet of https://a.example/2",
                    "publishedDate": None,
                },
            ],
        },
        {"query": "beta", "results": []},
        {
            "query": "gamma",
            "results": [
                {
                    "title": "title of https://g.example/",
                    "url": "https://g.example/",
                    "snippet": "snippet of https://g.example/",
                    "publishedDate": "2025-01-02",
                }
            ],
        },
    ]
    json.dumps(outcome.to_json())  # JSON-ready
    assert outcome.result_count == 3
    assert outcome.errors == {}


async def test_one_failing_query_does_not_fail_the_others() -> None:
    provider = ScriptedProvider(
        {
            "bad": ProviderError("brave: rate limited (HTTP 429)"),
            "worse": httpx2.ReadTimeout("slow"),
        },
        delay=0.01,
    )
    outcome = await web_search(provider, ["good", "bad", "fine", "worse"], max_results=3)
    assert outcome.errors == {"bad": "brave: rate limited (HTTP 429)", "worse": "ReadTimeout: slow"}
    assert outcome.queries == ["good", "bad", "fine", "worse"]
    assert [entry["query"] for entry in outcome.to_json()] == ["good", "bad", "fine", "worse"]
    assert outcome.to_json()[1] == {"query": "bad", "results": []}
    assert outcome.result_count == 2
    assert [r.url for r in outcome.results] == [
        "https://example.com/good",
        "https://example.com/fine",
    ]


async def test_every_query_failing_is_still_an_outcome() -> None:
    failure = ProviderError("tavily: HTTP 500 for 'x'")
    provider = ScriptedProvider({q: failure for q in ("a", "b", "c")})
    outcome = await web_search(provider, ["a", "b", "c"], max_results=3)
    assert outcome.result_count == 0
    assert set(outcome.errors) == {"a", "b", "c"}


async def test_user_errors_are_raised_not_recorded() -> None:
    provider = ScriptedProvider({"b": MissingKeyError("BRAVE_API_KEY")})
    with pytest.raises(MissingKeyError):
        await web_search(provider, ["a", "b", "c"], max_results=3)


async def test_bugs_are_raised_not_recorded() -> None:
    provider = ScriptedProvider({"c": KeyError("web")})
    with pytest.raises(KeyError):
        await web_search(provider, ["a", "b", "c"], max_results=3)


async def test_results_are_deduplicated_on_canonical_urls_first_wins() -> None:
    provider = ScriptedProvider(
        {
            "first": ["https://Example.com/page?utm_source=x", "https://example.com/other"],
            "second": ["https://example.com:443/page#part", "https://new.example/"],
            "third": [
                "https://example.com/other",
                "https://example.com/page",
                "https://new.example",
            ],
        }
    )
    outcome = await web_search(provider, ["first", "second", "third"], max_results=5)
    by_query = {entry["query"]: [r["url"] for r in entry["results"]] for entry in outcome.to_json()}
    assert by_query == {
        "first": ["https://Example.com/page?utm_source=x", "https://example.com/other"],
        "second": ["https://new.example/"],
        "third": [],
    }
    assert outcome.result_count == 3


async def test_each_query_keeps_at_most_max_results() -> None:
    many = [f"https://m.example/{n}" for n in range(10)]
    provider = ScriptedProvider({"a": many, "b": many, "c": []})
    outcome = await web_search(provider, ["a", "b", "c"], max_results=4)
    assert [len(entry["results"]) for entry in outcome.to_json()] == [4, 0, 0]
    assert provider.calls[0][1] == 4


async def test_time_range_reaches_the_provider() -> None:
    provider = ScriptedProvider()
    await web_search(provider, ["a", "b", "c"], max_results=2, time_range="week")
    assert {call[2] for call in provider.calls} == {"week"}


@pytest.mark.parametrize(
    ("queries", "expected"),
    [
        (["a", "b", "c"], ["a", "b", "c"]),
        (["  a  ", "b\tquery", "c\nd"], ["a", "b query", "c d"]),
        (["a", "", "  ", "b", "A", "a ", "c"], ["a", "b", "c"]),
        ([f"q{n}" for n in range(10)], [f"q{n}" for n in range(10)]),
        (("a", "b", "c"), ["a", "b", "c"]),
    ],
)
def test_queries_are_cleaned(queries: list[str], expected: list[str]) -> None:
    assert normalise_queries(queries) == expected


@pytest.mark.parametrize(
    ("queries", "fragment"),
    [
        (["only", "two"], "got 2"),
        (["a", "a", "A", "b"], "got 2"),
        (["a", "", " ", "b"], "got 2"),
        ([f"q{n}" for n in range(11)], "got 11"),
        ([], "got 0"),
    ],
)
async def test_query_count_is_checked(queries: list[str], fragment: str) -> None:
    provider = ScriptedProvider()
    with pytest.raises(BadInputError) as caught:
        await web_search(provider, queries, max_results=3)
    assert "3 to 10" in str(caught.value)
    assert fragment in str(caught.value)
    assert provider.calls == []


@pytest.mark.parametrize(
    ("queries", "fragment"),
    [
        ("one string", "list of 3 to 10"),
        (["a", 2, "c"], "query 2 is not a string"),
    ],
)
def test_bad_query_lists(queries: Any, fragment: str) -> None:
    with pytest.raises(BadInputError, match=fragment):
        normalise_queries(queries)


def test_an_overlong_query_is_condensed_not_refused() -> None:
    queries = normalise_queries(["a", "b", "x" * 401])
    assert queries[:2] == ["a", "b"] and 0 < len(queries[2]) <= 400


@pytest.mark.parametrize(
    ("kwargs", "fragment"),
    [
        ({"max_results": 0}, "max_results"),
        ({"max_results": True}, "max_results"),
        ({"max_results": 3, "time_range": "decade"}, "time_range must be one of day, week"),
    ],
)
async def test_bad_options(kwargs: dict[str, Any], fragment: str) -> None:
    with pytest.raises(BadInputError, match=fragment):
        await web_search(ScriptedProvider(), ["a", "b", "c"], **kwargs)


def test_outcome_of_nothing() -> None:
    empty = WebSearchOutcome(())
    assert empty.to_json() == []
    assert empty.result_count == 0
    assert empty.errors == {}
