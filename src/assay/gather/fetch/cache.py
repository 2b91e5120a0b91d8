"""An HTTP cache of fetched pages in one SQLite file.

Why so simple: a research run re-reads the same sources (resumes, repeated queries), and a
page younger than ``cache_ttl`` is served without touching the network at all. An older
entry is revalidated with its validators (ETag, Last-Modified); a 304 refreshes it. Only
complete 200 responses are stored, never truncated ones, so a cached body is always the
whole page. sqlite3 is blocking, so every call runs in a worker thread, one at a time.
"""

from __future__ import annotations

import asyncio
import json
import sqlite3
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from types import MappingProxyType
from typing import TypeVar

from assay.gather.fetch.page import FetchedPage

_T = TypeVar("_T")
_SCHEMA = """
CREATE TABLE IF NOT EXISTS pages (
    url TEXT PRIMARY KEY,
    final_url TEXT NOT NULL,
    status INTEGER NOT NULL,
    content_type TEXT NOT NULL,
    charset TEXT,
    headers TEXT NOT NULL,
    redirects TEXT NOT NULL,
    body BLOB NOT NULL,
    stored_at REAL NOT NULL
)
"""


@dataclass(frozen=True)
class CacheEntry:
    page: FetchedPage
    stored_at: float

    def is_fresh(self, ttl: float, now: float) -> bool:
        return now - self.stored_at < ttl

    def validators(self) -> dict[str, str]:
        """The conditional headers that ask the server "has this changed?"."""
        headers: dict[str, str] = {}
        if etag := self.page.headers.get("etag"):
            headers["If-None-Match"] = etag
        if modified := self.page.headers.get("last-modified"):
            headers["If-Modified-Since"] = modified
        return headers


class PageCache:
    """get/put/refresh of pages keyed by the URL that was asked for."""

    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        self._db = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
        with self._lock:
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=NORMAL")
            self._db.execute(_SCHEMA)

    async def _run(self, work: Callable[[], _T]) -> _T:
        def locked() -> _T:
            with self._lock:
                return work()

        return await asyncio.to_thread(locked)

    async def get(self, url: str) -> CacheEntry | None:
        def read() -> CacheEntry | None:
            row = self._db.execute(
                "SELECT final_url, status, content_type, charset, headers, redirects, body,"
                " stored_at FROM pages WHERE url = ?",
                (url,),
            ).fetchone()
            if row is None:
                return None
            final_url, status, content_type, charset, headers, redirects, body, stored = row
            page = FetchedPage(
                url=url,
                final_url=final_url,
                status=status,
                content_type=content_type,
                charset=charset,
                body=bytes(body),
                headers=MappingProxyType(json.loads(headers)),
                from_cache=True,
                redirects=tuple(json.loads(redirects)),
            )
            return CacheEntry(page, stored)

        return await self._run(read)

    async def put(self, page: FetchedPage) -> None:
        """Store a complete 200 page; anything else is silently not cached."""
        if page.status != 200 or page.truncated:
            return
        if "no-store" in page.headers.get("cache-control", "").lower():
            return

        def write() -> None:
            self._db.execute(
                "INSERT OR REPLACE INTO pages VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    page.url,
                    page.final_url,
                    page.status,
                    page.content_type,
                    page.charset,
                    json.dumps(dict(page.headers)),
                    json.dumps(list(page.redirects)),
                    page.body,
                    time.time(),
                ),
            )

        await self._run(write)

    async def refresh(self, entry: CacheEntry, headers: Mapping[str, str]) -> FetchedPage:
        """A 304 came back: the entry is fresh again, with the headers the 304 updated."""
        merged = dict(entry.page.headers)
        for name in ("etag", "last-modified", "cache-control", "expires", "date"):
            if name in headers:
                merged[name] = headers[name]
        page = replace(entry.page, headers=MappingProxyType(merged))

        def write() -> None:
            self._db.execute(
                "UPDATE pages SET headers = ?, stored_at = ? WHERE url = ?",
                (json.dumps(merged), time.time(), entry.page.url),
            )

        await self._run(write)
        return page

    def close(self) -> None:
        with self._lock:
            self._db.close()
