"""readUrl: fetch a source, extract its text, save the snapshot, record the source.

Every source a run uses passes through ``SourceReader.read``: it is fetched under the
fetcher's policy (or read from the local index for ``index://`` URLs), its text is capped
at the per-source token limit, the snapshot is written before the record is appended,
and each step is an event. A source that fails is skipped with a ``source.skipped``
event; it never aborts the run. A URL already read in this run is not fetched again,
which is what lets a resumed run go on without repeating its fetches.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Protocol

from assay.config import FetchSettings
from assay.errors import FetchError
from assay.events import SourceSkipped, ToolOpenUrl, WarningEvent
from assay.gather.extract import Extracted, extract
from assay.gather.fetch.page import FetchedPage
from assay.gather.index import LocalIndex
from assay.gather.reliability import reliability_of
from assay.reading.tokens import TokenWindow, estimate_tokens, truncate_to_tokens
from assay.store.eventlog import utc_now
from assay.store.runs import Run
from assay.store.sources import SourceRecord

INDEX_SCHEME = "index://"


class PageFetcher(Protocol):
    """What the reader needs of a fetcher (``assay.gather.fetch.Fetcher`` is one)."""

    async def fetch(self, url: str) -> FetchedPage: ...


@dataclass(frozen=True)
class ReadSource:
    """A source as the run's agents see it: its record and the text kept in context."""

    record: SourceRecord
    text: str
    tokens: int
    truncated: bool
    from_cache: bool


class SourceReader:
    """Reads sources into one run directory."""

    def __init__(
        self,
        run: Run,
        fetcher: PageFetcher,
        settings: FetchSettings,
        *,
        index: LocalIndex | None = None,
    ) -> None:
        self.run = run
        self.fetcher = fetcher
        self.settings = settings
        self.index = index
        self.ledger = run.source_ledger
        self.window = TokenWindow(settings.run_token_cap)

    async def read(
        self, url: str, *, bibliography: Mapping[str, object] | None = None
    ) -> ReadSource | None:
        """The source at ``url``, or None when it was skipped (the event says why);
        ``bibliography``: the work's authors, venue, year and DOI, for its record."""
        existing = self.ledger.by_url(url)
        if existing is not None:
            return self._from_record(existing)
        try:
            extracted, final_url, from_cache = await self._load(url)
        except FetchError as exc:
            self.run.events.emit(SourceSkipped(url=url, reason=exc.reason))
            return None
        if not extracted.text.strip():
            self.run.events.emit(SourceSkipped(url=url, reason="no readable text"))
            return None
        text, truncated = truncate_to_tokens(extracted.text, self.settings.source_token_cap)
        record = self.ledger.add(
            url=url,
            final_url=final_url,
            title=extracted.title,
            text=text,
            content_type=extracted.content_type,
            accessed_at=utc_now(),
            reliability="unknown" if url.startswith(INDEX_SCHEME) else reliability_of(final_url),
            bibliography=bibliography,
        )
        self.run.events.emit(
            ToolOpenUrl(url=url, title=record.title, snapshot=record.snapshot, source_id=record.id)
        )
        if truncated:
            self._warn(
                f"{record.id} ({url}) truncated to {self.settings.source_token_cap} tokens",
                "source_token_cap",
            )
        return self._keep(record, text, truncated, from_cache)

    async def _load(self, url: str) -> tuple[Extracted, str, bool]:
        if url.startswith(INDEX_SCHEME):
            return self._from_index(url), url, False
        page = await self.fetcher.fetch(url)
        # Extraction is CPU work (up to seconds on a large page): keep the event loop free.
        extracted = await asyncio.to_thread(
            extract, page.body, page.content_type, page.charset, page.final_url
        )
        if page.truncated:
            self._warn(f"{url} was cut at {self.settings.max_bytes} bytes", "source_size_cap")
        return extracted, page.final_url, page.from_cache

    def _from_index(self, url: str) -> Extracted:
        doc_id = url.removeprefix(INDEX_SCHEME).strip("/")
        document = self.index.get(doc_id) if self.index is not None else None
        if document is None:
            raise FetchError(url, "no such document in the local index")
        return Extracted(
            title=document.title,
            author=None,
            date=None,
            text=document.text,
            content_type=document.content_type,
            extractor="index",
        )

    def _from_record(self, record: SourceRecord) -> ReadSource:
        text = self.ledger.read_snapshot(record)
        return self._keep(record, text, truncated=False, from_cache=True)

    def _keep(
        self, record: SourceRecord, text: str, truncated: bool, from_cache: bool
    ) -> ReadSource:
        tokens = estimate_tokens(text)
        evicted = self.window.add(record.id, tokens)
        if evicted:
            self._warn(
                f"run token cap {self.settings.run_token_cap} reached: kept the newest sources, "
                f"dropped {', '.join(evicted)} from the working context (snapshots stay on disk)",
                "run_token_cap",
            )
        return ReadSource(record, text, tokens, truncated, from_cache)

    def _warn(self, message: str, code: str) -> None:
        self.run.events.emit(WarningEvent(message=message, code=code))
