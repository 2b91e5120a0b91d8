"""The ``local`` search provider: the user's own documents, from ``$ASSAY_HOME/index.sqlite``.

Results point at the document's own URL when it has one, else at ``index://<doc-id>``
(``LocalIndex.get`` resolves it). The search is hybrid, by words and by meaning (the
bundled embedder, ``gather.vectors``); passages without a vector of its model are found by
their words only, which is logged once per index. ``time_range`` is ignored: indexed
documents carry no dates. A missing index is a ProviderError that says how to build one;
the index file is opened per call, so the provider holds nothing open between searches
(the vector matrix stays cached in the process until the index changes).

The search runs in a worker thread, which a cancelled task cannot stop by itself: the
thread's query watches a cancel flag that the task sets when it ends, and a deadline of
``SEARCH_SECONDS``, so Ctrl-C or a run's time budget never waits on a long search.
"""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING

from assay.errors import ProviderError
from assay.gather.index import INDEX_FILE, LocalIndex
from assay.gather.search.base import SearchProvider, SearchResult, TimeRange
from assay.gather.search.common import SNIPPET_LIMIT, clean_text
from assay.reading.embed import default_embedder

if TYPE_CHECKING:
    import httpx2

    from assay.config import Settings
    from assay.keys import KeyStore

NAME = "local"
SEARCH_SECONDS = 30.0
_log = logging.getLogger(__name__)
_noted: set[tuple[str, str]] = set()  # (index, note) already logged by this process


class LocalSearch:
    """Search over the local index: bm25 and passage vectors, fused."""

    name = NAME

    def __init__(self, path: Path) -> None:
        self.path = path

    def __repr__(self) -> str:
        return f"LocalSearch({str(self.path)!r})"

    async def search(
        self,
        queries: list[str],
        *,
        max_results: int,
        time_range: TimeRange | None = None,
    ) -> list[SearchResult]:
        if not self.path.is_file():
            raise ProviderError(
                f"{NAME}: there is no index at {self.path}; add documents with "
                "`assay index add PATH...`"
            )
        cancel = threading.Event()
        try:
            return await asyncio.to_thread(self._search, queries, max_results, cancel)
        finally:
            cancel.set()  # a cancelled task leaves its thread behind: stop that thread's query

    def _search(
        self, queries: list[str], max_results: int, cancel: threading.Event
    ) -> list[SearchResult]:
        results: list[SearchResult] = []
        deadline = time.monotonic() + SEARCH_SECONDS
        with LocalIndex(self.path, embedder=default_embedder()) as index:
            note = index.vector_status().note
            if note and (str(self.path), note) not in _noted:
                _noted.add((str(self.path), note))
                _log.warning("%s: %s", self.path, note)
            for query in queries:
                hits = index.search(query, limit=max_results, deadline=deadline, cancel=cancel)
                for rank, hit in enumerate(hits, start=1):
                    results.append(
                        SearchResult(
                            query=query,
                            title=clean_text(hit.title) or hit.url,
                            url=hit.url,
                            snippet=clean_text(hit.snippet, SNIPPET_LIMIT),
                            provider=NAME,
                            rank=rank,
                        )
                    )
        return results


def create(settings: Settings, *, http: httpx2.AsyncClient, keys: KeyStore) -> SearchProvider:
    """The ``assay.search`` entry point: ``local = "assay.gather.search.local:create"``."""
    return LocalSearch(settings.home / INDEX_FILE)
