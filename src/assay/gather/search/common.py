"""The conventions every built-in provider shares, so they answer failures the same way.

* a rejected key (HTTP 401/403, or a provider's own "invalid key" code) is a
  ``ProviderError`` that names the key's variable, never its value;
* HTTP 429 is a ``ProviderError`` saying "rate limited";
* any other non-2xx status, a transport failure, or a body that is not the documented
  JSON is a ``ProviderError`` with the status and the provider's own error message.

Last, ``answer_items`` and ``loose_hit`` read results out of answers whose shape no API
documents (an MCP server's search tool).
"""

from __future__ import annotations

import asyncio
import json
import re
from abc import ABC, abstractmethod
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from typing import Any, NamedTuple
from urllib.parse import urlsplit

import httpx2

from assay.errors import ProviderError
from assay.gather.search.base import SearchResult, TimeRange
from assay.redact import mask

SNIPPET_LIMIT = 500  # characters of snippet kept per hit
_DETAIL_LIMIT = 200  # characters of a provider's error message quoted back
_NAME_LIMIT = 200  # characters kept of an author's name, a venue, a DOI
_WHITESPACE = re.compile(r"\s+")
_LABELS = {"title": "title", "name": "title", "url": "url", "link": "url", "href": "url",
           "description": "snippet", "snippet": "snippet", "content": "snippet",
           "summary": "snippet", "published": "date", "date": "date"}  # fmt: skip


class PerQuerySearch(ABC):
    """A provider whose API takes one query per request: ``search`` runs each query
    through ``_one`` concurrently, and one failing query does not fail the others."""

    name: str

    async def search(
        self,
        queries: list[str],
        *,
        max_results: int,
        time_range: TimeRange | None = None,
    ) -> list[SearchResult]:
        return await search_each(queries, lambda q: self._one(q, max_results, time_range))

    @abstractmethod
    async def _one(
        self, query: str, max_results: int, time_range: TimeRange | None
    ) -> list[SearchResult]: ...


class KeyedSearch(PerQuerySearch):
    """A per-query provider with an API key, which never shows in a repr."""

    def __init__(self, *, http: httpx2.AsyncClient, api_key: str) -> None:
        self._http = http
        self._key = api_key

    def __repr__(self) -> str:
        return f"{type(self).__name__}(api_key=****)"


class Hit(NamedTuple):
    """One result as a provider's API gave it, before ranking (a scholarly provider's
    with the work's authors, venue, year and DOI)."""

    url: Any
    title: Any
    snippet: Any
    published_date: Any = None
    authors: Sequence[Any] = ()
    venue: Any = None
    year: Any = None
    doi: Any = None


def clean_text(value: Any, limit: int | None = None) -> str:
    """A string field from an API answer with its whitespace collapsed; "" if not a string."""
    if not isinstance(value, str):
        return ""
    text = _WHITESPACE.sub(" ", value).strip()
    if limit is not None and len(text) > limit:
        text = text[: limit - 1].rstrip() + "…"
    return text


def rank_hits(
    query: str, provider: str, hits: Iterable[Hit], max_results: int
) -> list[SearchResult]:
    """Keep the hits with an http(s) URL, in the provider's order, ranked 1..n."""
    results: list[SearchResult] = []
    for hit in hits:
        if len(results) >= max_results:
            break
        url = clean_text(hit.url)
        if not _is_web_url(url):
            continue
        results.append(
            SearchResult(
                query=query,
                title=clean_text(hit.title) or url,
                url=url,
                snippet=clean_text(hit.snippet, SNIPPET_LIMIT),
                provider=provider,
                rank=len(results) + 1,
                published_date=clean_text(hit.published_date) or None,
                authors=tuple(a for a in (clean_text(n, _NAME_LIMIT) for n in hit.authors) if a),
                venue=clean_text(hit.venue, _NAME_LIMIT) or None,
                year=hit.year if isinstance(hit.year, int) and 0 < hit.year < 10_000 else None,
                doi=clean_text(hit.doi, _NAME_LIMIT) or None,
            )
        )
    return results


async def search_each(
    queries: Sequence[str], one: Callable[[str], Awaitable[list[SearchResult]]]
) -> list[SearchResult]:
    """Run ``one`` for every query concurrently; the first failure (in query order) is raised."""
    outcomes = await asyncio.gather(*(one(q) for q in queries), return_exceptions=True)
    results: list[SearchResult] = []
    for outcome in outcomes:
        if isinstance(outcome, BaseException):
            raise outcome
        results.extend(outcome)
    return results


async def request_json(
    http: httpx2.AsyncClient,
    method: str,
    url: str,
    *,
    provider: str,
    query: str,
    key_variable: str | None = None,
    secret: str | None = None,
    key_rejected: Callable[[int, Any], bool] | None = None,
    hints: Mapping[int, str] | None = None,
    params: Mapping[str, str | int] | None = None,
    json: Any = None,
    headers: Mapping[str, str] | None = None,
) -> Any:
    """Send one request and return its decoded JSON; every failure is a ProviderError.

    ``key_rejected(status, body)`` recognises a provider's own way of saying the key is
    bad (Brave answers 422 with ``SUBSCRIPTION_TOKEN_INVALID``); 401 and 403 count whenever
    the provider has a key. ``hints`` adds a sentence to the error for a given status.
    """
    try:
        response = await http.request(method, url, params=params, json=json, headers=headers)
    except httpx2.HTTPError as exc:
        raise transport_error(exc, provider, query, secret) from None
    body = _json_or_none(response)
    check_answer(
        response.status_code, response.headers, body, response.text, provider=provider,
        query=query, key_variable=key_variable, secret=secret, key_rejected=key_rejected,
        hints=hints,
    )  # fmt: skip
    if body is None:
        raise ProviderError(
            f"{provider}: HTTP {response.status_code} but the answer is not valid JSON"
        )
    return body


def transport_error(
    exc: httpx2.HTTPError, provider: str, query: str, secret: str | None = None
) -> ProviderError:
    """The ProviderError for a request that got no answer (the key never shows)."""
    if isinstance(exc, httpx2.TimeoutException):
        return ProviderError(f"{provider}: the search for {query!r} timed out")
    reason = _masked(str(exc) or type(exc).__name__, secret)
    return ProviderError(f"{provider}: the search for {query!r} failed: {reason}")


def check_answer(
    status: int,
    headers: Mapping[str, str],
    body: Any,
    text: str,
    *,
    provider: str,
    query: str,
    key_variable: str | None = None,
    secret: str | None = None,
    key_rejected: Callable[[int, Any], bool] | None = None,
    hints: Mapping[int, str] | None = None,
) -> None:
    """Raise the ProviderError a non-2xx answer means (``body``: its JSON, or None)."""
    hint = f"; {hints[status]}" if hints and status in hints else ""
    if key_variable and (
        status in (401, 403) or (status >= 400 and key_rejected and key_rejected(status, body))
    ):
        raise ProviderError(
            f"{provider}: the API key was rejected (HTTP {status}); check {key_variable}{hint}"
        )
    if status == 429:
        wait = headers.get("retry-after")
        after = f"; retry after {wait} s" if wait and wait.isdigit() else ""
        raise ProviderError(f"{provider}: rate limited (HTTP 429){after}{hint}")
    if not 200 <= status < 300:
        detail = _masked(error_detail(body, text), secret)
        said = f": {detail}" if detail else ""
        raise ProviderError(f"{provider}: HTTP {status} for {query!r}{said}{hint}")


def expect_list(value: Any, provider: str, field: str) -> list[Any]:
    """``value`` when it is a list (None counts as empty); otherwise a ProviderError."""
    if value is None:
        return []
    if not isinstance(value, list):
        raise ProviderError(f"{provider}: unexpected answer: {field} is not a list")
    return value


def result_items(payload: Any, provider: str, *path: str) -> list[Any]:
    """The list of results at ``path`` in an answer that must be a JSON object."""
    if not isinstance(payload, dict):
        raise ProviderError(f"{provider}: unexpected answer: not a JSON object")
    value: Any = payload
    for key in path:
        value = value.get(key) if isinstance(value, dict) else None
    return expect_list(value, provider, path[0])


def field(item: Any, *names: str) -> Any:
    """The first of ``names`` that ``item`` (a JSON object) has a non-empty value for."""
    if not isinstance(item, dict):
        return None
    for name in names:
        value = item.get(name)
        if value not in (None, "", []):
            return value
    return None


def error_detail(body: Any, text: str = "") -> str:
    """The human message inside a provider's error answer, or the start of its text."""
    found = _message_in(body)
    return clean_text(found or text, _DETAIL_LIMIT)


def loose_hit(item: Any) -> Hit:
    """A Hit from a result object whose field names are not fixed by a documented API."""
    return Hit(
        field(item, "url", "link", "href"),
        field(item, "title", "name"),
        field(item, "snippet", "content", "description", "summary", "text", "body"),
        field(item, "published_date", "publishedDate", "date", "page_age", "age"),
    )


def answer_items(structured: Any, texts: Sequence[str]) -> list[Any] | None:
    """The result objects in a loosely shaped answer (an MCP tool's), or None if none.

    Structured content wins; then each text block as JSON; then ``Title:``/``URL:`` lines.
    An answer that says "no results" in a readable shape gives [].
    """
    found = _as_items(structured)
    if found is not None:
        return found
    parsed = [_as_items(text) for text in texts]
    if any(p is not None for p in parsed):
        return [item for p in parsed if p for item in p]
    labelled = [item for text in texts for item in _labelled(text)]
    return labelled or None


def _as_items(value: Any, depth: int = 0) -> list[Any] | None:
    """The result objects in a decoded (or JSON-text) tool answer, or None."""
    if depth > 3:
        return None
    if isinstance(value, str):
        try:
            return _as_items(json.loads(value), depth + 1)
        except ValueError:
            return None
    if isinstance(value, list):
        return value if all(isinstance(v, dict) for v in value) else None
    if isinstance(value, dict):
        if field(value, "url", "link", "href"):
            return [value]
        for key in ("results", "result", "items", "organic", "data"):
            if key in value:
                return _as_items(value[key], depth + 1)
    return None


def _labelled(text: str) -> list[dict[str, str]]:
    """Records from ``Title: …`` / ``URL: …`` / ``Description: …`` lines."""
    records: list[dict[str, str]] = []
    current: dict[str, str] = {}
    for line in text.splitlines():
        label, sep, value = line.partition(":")
        key = _LABELS.get(label.strip().lower())
        if not sep or key is None:
            continue
        if key in current:
            records.append(current)
            current = {}
        current[key] = value.strip()
    records.append(current)
    return [r for r in records if r.get("url")]


def _message_in(body: Any, depth: int = 0) -> str:
    if isinstance(body, str):
        return body
    if not isinstance(body, dict) or depth > 2:
        return ""
    for name in ("detail", "message", "error", "msg"):
        found = _message_in(body.get(name), depth + 1)
        if found:
            return found
    return ""


def _is_web_url(url: str) -> bool:
    try:
        parts = urlsplit(url)
    except ValueError:  # e.g. a malformed IPv6 literal
        return False
    return parts.scheme.lower() in ("http", "https") and bool(parts.hostname)


def _json_or_none(response: httpx2.Response) -> Any:
    try:
        return response.json()
    except ValueError:
        return None


def _masked(text: str, secret: str | None) -> str:
    return mask(text, [secret] if secret else [])
