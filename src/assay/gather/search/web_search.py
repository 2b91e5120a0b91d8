"""The webSearch tool: 3-10 queries fired at once, results merged on canonical URLs.

Each query is its own ``provider.search([query])`` call, all running concurrently. A
query whose search fails (a ``ProviderError``, a timeout, a transport error) is recorded
in ``errors`` and the others go on; an error the user must fix (a missing key, a bad
setting) or a bug is raised. Results are deduplicated across queries on
``canonical_url``: the first occurrence, in query order then rank order, wins.

``WebSearchOutcome.to_json()`` is the shape the agent loop documents::

    [{"query": "...", "results": [{"title", "url", "snippet", "publishedDate"}]}]
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, get_args

import httpx2

from assay.errors import BadInputError, ProviderError
from assay.gather.search.base import SearchProvider, SearchResult, TimeRange
from assay.urls import canonical_url

MIN_QUERIES = 3
MAX_QUERIES = 10
MAX_QUERY_CHARS = 400
_TAIL_WORDS = 6
_RECORDED = (ProviderError, TimeoutError, httpx2.HTTPError, OSError)


@dataclass(frozen=True)
class QueryOutcome:
    """What one query gave: its results (after dedupe) or why it failed."""

    query: str
    results: tuple[SearchResult, ...] = ()
    error: str | None = None


@dataclass(frozen=True)
class WebSearchOutcome:
    """Every query's outcome, in the order the queries were given."""

    outcomes: tuple[QueryOutcome, ...]

    @property
    def queries(self) -> list[str]:
        return [o.query for o in self.outcomes]

    @property
    def results(self) -> list[SearchResult]:
        """Every kept result, in query order then rank order."""
        return [r for o in self.outcomes for r in o.results]

    @property
    def errors(self) -> dict[str, str]:
        """The failed queries and what went wrong with each."""
        return {o.query: o.error for o in self.outcomes if o.error is not None}

    @property
    def result_count(self) -> int:
        return sum(len(o.results) for o in self.outcomes)

    def to_json(self) -> list[dict[str, Any]]:
        return [
            {
                "query": o.query,
                "results": [
                    {
                        "title": r.title,
                        "url": r.url,
                        "snippet": r.snippet,
                        "publishedDate": r.published_date,
                    }
                    for r in o.results
                ],
            }
            for o in self.outcomes
        ]


def normalise_queries(queries: Sequence[str]) -> list[str]:
    """The queries stripped and condensed, blanks and repeats dropped; 3-10 must remain."""
    if isinstance(queries, str) or not isinstance(queries, Sequence):
        raise BadInputError(
            f"webSearch takes a list of {MIN_QUERIES} to {MAX_QUERIES} query strings"
        )
    kept: list[str] = []
    seen: set[str] = set()
    for position, query in enumerate(queries, start=1):
        if not isinstance(query, str):
            raise BadInputError(f"webSearch query {position} is not a string")
        text = condense_query(query)
        if text and text.casefold() not in seen:
            seen.add(text.casefold())
            kept.append(text)
    if not MIN_QUERIES <= len(kept) <= MAX_QUERIES:
        raise BadInputError(
            f"webSearch needs {MIN_QUERIES} to {MAX_QUERIES} distinct, non-blank queries; "
            f"got {len(kept)}"
        )
    return kept


def condense_query(query: str, limit: int = MAX_QUERY_CHARS) -> str:
    """``query`` in at most ``limit`` characters: whitespace collapsed, repeated words dropped,
    then its head and its last words (where "<topic> history" keeps its angle).

    Why not refuse: a long topic (a pasted paragraph) becomes every query a protocol
    derives from it; search engines cap queries, so the run searches a condensed form.
    """
    words = query.split()
    text = " ".join(words)
    if len(text) <= limit:
        return text
    unique: dict[str, str] = {}
    for word in words:
        unique.setdefault(word.casefold(), word)
    distinct = list(unique.values())
    text = " ".join(distinct)
    if len(text) <= limit:
        return text
    tail = " ".join(distinct[-_TAIL_WORDS:])[-(limit // 4) :].strip()
    head: list[str] = []
    room = limit - len(tail) - 1
    for word in distinct[: -_TAIL_WORDS or None]:
        if len(word) + 1 > room:
            break
        head.append(word)
        room -= len(word) + 1
    return " ".join([*head, tail]).strip()[:limit]


async def web_search(
    provider: SearchProvider,
    queries: Sequence[str],
    *,
    max_results: int,
    time_range: TimeRange | None = None,
) -> WebSearchOutcome:
    """Run every query concurrently and merge the results (see the module docstring)."""
    kept = normalise_queries(queries)
    if isinstance(max_results, bool) or not isinstance(max_results, int) or max_results < 1:
        raise BadInputError(f"max_results must be a positive integer, got {max_results!r}")
    if time_range is not None and time_range not in get_args(TimeRange):
        raise BadInputError(
            f"time_range must be one of {', '.join(get_args(TimeRange))}, got {time_range!r}"
        )
    answers = await asyncio.gather(
        *(provider.search([q], max_results=max_results, time_range=time_range) for q in kept),
        return_exceptions=True,
    )
    for answer in answers:
        if isinstance(answer, BaseException) and not isinstance(answer, _RECORDED):
            raise answer
    seen: set[str] = set()
    outcomes: list[QueryOutcome] = []
    for query, answer in zip(kept, answers, strict=True):
        if isinstance(answer, BaseException):
            outcomes.append(QueryOutcome(query, error=_describe(answer)))
            continue
        fresh: list[SearchResult] = []
        for result in answer[:max_results]:
            key = canonical_url(result.url)
            if key not in seen:
                seen.add(key)
                fresh.append(result)
        outcomes.append(QueryOutcome(query, tuple(fresh)))
    return WebSearchOutcome(tuple(outcomes))


def _describe(error: BaseException) -> str:
    if isinstance(error, ProviderError):
        return str(error)
    detail = str(error)
    return f"{type(error).__name__}: {detail}" if detail else type(error).__name__
