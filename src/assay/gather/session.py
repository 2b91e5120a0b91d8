"""A run's gathering tools, webSearch and readUrl, with their events.

``GatherSession`` owns what gathering needs for one run — the search provider, the one
HTTP client it uses, the fetcher, the local index, the run's source controls (domains,
dates: ``screen.py``) — and records every call in the run's event log in the shapes
agent-loop.txt shows.
"""

from __future__ import annotations

import contextlib
from collections.abc import Sequence
from types import TracebackType
from typing import Self

import httpx2

from assay.budget import Budget
from assay.config import Settings
from assay.events import ToolSearch, WarningEvent
from assay.gather.fetch import Fetcher, Resolver
from assay.gather.index import LocalIndex
from assay.gather.reader import PageFetcher, ReadSource, SourceReader
from assay.gather.screen import SourceControls
from assay.gather.search.base import SearchProvider, TimeRange
from assay.gather.search.registry import build_search_provider, search_client
from assay.gather.search.web_search import WebSearchOutcome, web_search
from assay.keys import KeyStore
from assay.store.runs import Run
from assay.urls import canonical_url

INDEX_FILE = "index.sqlite"
CACHE_FILE = "http-cache.sqlite"


class GatherSession:
    """webSearch and readUrl for one run; use as ``async with``."""

    def __init__(
        self,
        run: Run,
        settings: Settings,
        *,
        keys: KeyStore,
        provider: SearchProvider | None = None,
        fetcher: PageFetcher | None = None,
        resolver: Resolver | None = None,
        search_transport: httpx2.AsyncBaseTransport | None = None,
        budget: Budget | None = None,
    ) -> None:
        self.run = run
        self.settings = settings
        self.budget = budget
        self._stack = contextlib.AsyncExitStack()
        self._http = search_client(settings, transport=search_transport, resolver=resolver)
        self.provider = provider or build_search_provider(settings, http=self._http, keys=keys)
        self.controls = SourceControls.of(settings)
        self.fetcher: PageFetcher = fetcher or Fetcher(
            settings.fetch,
            allow_hosts=settings.allow_hosts,
            cache_path=settings.home / CACHE_FILE,
            resolver=resolver,
            domains=self.controls.domains,
        )
        self._warned_undated = False
        self._papers: dict[str, dict[str, object]] = {}  # canonical URL -> its bibliography
        index_path = settings.home / INDEX_FILE
        self.index = LocalIndex(index_path) if index_path.is_file() else None
        self.reader = SourceReader(run, self.fetcher, settings.fetch, index=self.index)

    async def __aenter__(self) -> Self:
        await self._stack.__aenter__()
        self._stack.push_async_callback(self._http.aclose)
        if isinstance(self.fetcher, Fetcher):
            self._stack.push_async_callback(self.fetcher.aclose)
        if self.index is not None:
            self._stack.callback(self.index.close)
        if isinstance(self.provider, contextlib.AbstractAsyncContextManager):
            # One session for the whole run (an MCP server is started once, not per query).
            await self._stack.enter_async_context(self.provider)
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self._stack.__aexit__(exc_type, exc, tb)

    async def search(
        self, queries: Sequence[str], *, time_range: TimeRange | None = None
    ) -> WebSearchOutcome:
        """webSearch: 3–10 queries fired concurrently, screened by the run's source
        controls; one ``tool.search`` event (and a warning, once a run, when results
        without a date were kept under ``--since`` / ``--until``)."""
        window = self.controls.provider_window(time_range)
        found = await web_search(
            self.provider, queries, max_results=self.settings.max_results, time_range=window
        )
        screened = self.controls.screen(found)
        outcome = screened.outcome
        for result in outcome.results:
            if result.bibliography():
                self._papers.setdefault(canonical_url(result.url), result.bibliography())
        if screened.undated and not self._warned_undated:
            self._warned_undated = True
            self.run.events.emit(
                WarningEvent(
                    message=f"{screened.undated} search results have no publication date and "
                    "were kept although --since/--until is set (later ones are kept silently)",
                    code="undated_results",
                )
            )
        self.run.events.emit(
            ToolSearch(
                queries=outcome.queries,
                result_count=outcome.result_count,
                provider=self.provider.name,
                errors=outcome.errors or None,
                results=[{"title": r.title, "url": r.url} for r in outcome.results] or None,
            )
        )
        return outcome

    async def read(self, url: str) -> ReadSource | None:
        """readUrl: the source's snapshot and record, or None when it was skipped (a paper
        a scholarly search found keeps its bibliographic record in sources.jsonl).

        A URL this run has not read yet counts against the fetch budget.
        """
        if self.budget is not None and self.reader.ledger.by_url(url) is None:
            self.budget.charge_fetch()
        return await self.reader.read(url, bibliography=self._papers.get(canonical_url(url)))
