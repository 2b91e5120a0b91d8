"""What the scholarly providers share (``arxiv``, ``openalex``, ``semanticscholar``,
``pubmed``): polite, capped GETs to a public API, and the query's search terms.

Politeness, as the project keeps it for pages and these APIs' terms ask:

- every request carries assay's User-Agent (``assay/VERSION (+project URL)``);
- requests to one API's host are paced: at least ``interval`` seconds from the end of one
  to the start of the next (1 s, arXiv 3 s as its terms ask), one at a time, shared with
  the fetcher's table inside ``shared_pacing`` (a batch's runs pace a host together);
- an answer is read up to ``MAX_ANSWER_BYTES`` and refused past it;
- robots.txt governs crawling pages, not these documented machine interfaces, so it is
  not asked here; every result page a run then reads goes through the fetcher, which
  obeys it.

Keys: a provider's optional key (and the contact e-mail) go only to the endpoint the
settings name (``ScholarlySettings``), which a server's requests cannot choose; an error
message never shows the key.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any, NamedTuple
from urllib.parse import urlsplit

import httpx2

from assay.errors import ProviderError
from assay.gather.fetch.client import default_user_agent
from assay.gather.fetch.pacing import Pacer, pacing_is_shared
from assay.gather.search.common import PerQuerySearch, check_answer, transport_error
from assay.text import is_content, words

if TYPE_CHECKING:
    from assay.gather.search.base import TimeRange

MAX_ANSWER_BYTES = 4_000_000
DEFAULT_INTERVAL = 1.0  # seconds between two requests to one API host
MAX_TERMS = 8  # search terms kept of a long question
WINDOW_DAYS = {"day": 1, "week": 7, "month": 31, "year": 366}


class Answer(NamedTuple):
    status: int
    headers: Mapping[str, str]
    body: bytes


class ScholarlyAPI(PerQuerySearch):
    """A per-query provider over one public scholarly API (see the module docstring)."""

    name: str
    interval: float = DEFAULT_INTERVAL
    key_variable: str | None = None

    def __init__(
        self,
        *,
        http: httpx2.AsyncClient,
        endpoint: str,
        key: str | None = None,
        contact: str | None = None,
    ) -> None:
        self._http = http
        self.endpoint = endpoint.rstrip("/")
        self._key = key
        self._contact = contact
        self._pacer = Pacer(self.interval, 1, shared=pacing_is_shared())

    def __repr__(self) -> str:
        key = ", key=****" if self._key else ""
        return f"{type(self).__name__}(endpoint={self.endpoint!r}{key})"

    async def get(
        self,
        url: str,
        params: Mapping[str, str | int],
        query: str,
        *,
        headers: Mapping[str, str] | None = None,
        accept: str = "application/json",
    ) -> Answer:
        """GET ``url``, paced and capped. A failure to get an answer, or an answer over the
        cap, is a ProviderError; the status is the caller's to read."""
        sent = {"User-Agent": default_user_agent(), "Accept": accept, **(headers or {})}
        host = urlsplit(url).hostname or url
        async with self._pacer.slot(host):
            try:
                async with self._http.stream("GET", url, params=params, headers=sent) as answer:
                    body = await _capped(answer, self.name)
                    return Answer(answer.status_code, answer.headers, body)
            except httpx2.HTTPError as exc:
                raise transport_error(exc, self.name, query, self._key) from None

    async def get_json(
        self,
        url: str,
        params: Mapping[str, str | int],
        query: str,
        *,
        headers: Mapping[str, str] | None = None,
        key_rejected: Any = None,
    ) -> Any:
        """GET ``url`` and decode its JSON; a non-2xx answer is the ProviderError it means."""
        answer = await self.get(url, params, query, headers=headers)
        decoded = _json_or_none(answer.body)
        hint = self.busy_hint if self.key_variable and not self._key else None
        check_answer(
            answer.status, answer.headers, decoded, answer.body.decode("utf-8", "replace"),
            provider=self.name, query=query,
            key_variable=self.key_variable if self._key else None, secret=self._key,
            key_rejected=key_rejected, hints={429: hint} if hint else None,
        )  # fmt: skip
        if decoded is None:
            raise ProviderError(
                f"{self.name}: HTTP {answer.status} but the answer is not valid JSON"
            )
        return decoded

    @property
    def busy_hint(self) -> str:
        """What to do about a 429 from a keyless client: a key of one's own."""
        return f"set {self.key_variable} for a rate limit of your own"


def search_terms(query: str, limit: int = MAX_TERMS) -> list[str]:
    """The query's content words, lower-cased (so no word reads as an API's operator, such
    as arXiv's AND/OR), each once, in order; at most ``limit``."""
    kept = dict.fromkeys(w for w in words(query) if is_content(w) or w.isdigit())
    return list(kept)[:limit]


def window_start(time_range: TimeRange, now: datetime | None = None) -> datetime:
    """When the last day, week, month or year began (UTC)."""
    return (now or datetime.now(UTC)) - timedelta(days=WINDOW_DAYS[time_range])


async def _capped(answer: httpx2.Response, provider: str) -> bytes:
    chunks: list[bytes] = []
    size = 0
    async for chunk in answer.aiter_bytes():
        size += len(chunk)
        if size > MAX_ANSWER_BYTES:
            raise ProviderError(f"{provider}: the answer is larger than {MAX_ANSWER_BYTES} bytes")
        chunks.append(chunk)
    return b"".join(chunks)


def _json_or_none(body: bytes) -> Any:
    try:
        return json.loads(body)
    except ValueError:
        return None
