"""One request as the policy allows it: paced, guarded, deadline-bound, read under the limits.

Why a module of its own: a page hop and a robots.txt fetch send requests the same way
(same pacing slot, same address guard, same deadline and retry rules) and differ only in
what they accept afterwards, which ``robots=True`` switches. The ``Exchanger`` turns
everything the lower layers raise into ``PolicyViolation``, ``FetchError`` or a retry.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass

import httpx2

from assay.config import FetchSettings
from assay.errors import FetchError, PolicyViolation
from assay.gather.fetch.guard import AddressRefused, ResolutionFailed
from assay.gather.fetch.limits import LimitExceeded, parse_content_type, read_capped, type_refusal
from assay.gather.fetch.pacing import Pacer, PacingOverrun
from assay.gather.fetch.retry import RETRY_STATUSES, backoff, parse_retry_after

REDIRECT_STATUSES = frozenset({301, 302, 303, 307, 308})


@dataclass(frozen=True)
class Reply:
    """One HTTP exchange: status and headers, the redirect target, the body when read."""

    url: str
    status: int
    headers: httpx2.Headers
    attempts: int = 1
    location: str | None = None
    body: bytes = b""
    truncated: bool = False
    media_type: str = ""
    charset: str | None = None


class HostNotFound(FetchError):
    """The host name does not resolve: the source does not exist, whatever robots.txt says."""


class OutOfTime(FetchError):
    """The host's pacing interval would outlast the fetch's deadline: it failed at once,
    sending nothing. A matter of this fetch's clock, not of the host: never a robots rule."""


class _Retryable(Exception):
    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class Deadline:
    """The fetch's time budget, in event-loop time; queueing extends it (``pacing``).

    ``within``: the deadline of the fetch this one serves (a robots.txt fetch made for a
    page), which ``remaining`` never exceeds, so a wait that would outlast the page's
    deadline fails at once here too.
    """

    def __init__(self, seconds: float, *, within: Deadline | None = None) -> None:
        self.seconds = seconds
        self._loop = asyncio.get_running_loop()
        self.when = self._loop.time() + seconds
        self._within = within

    def extend(self, waited: float) -> None:
        self.when += max(0.0, waited)

    def remaining(self) -> float:
        left = self.when - self._loop.time()
        return left if self._within is None else min(left, self._within.remaining())


def check_scheme(url: str) -> None:
    try:
        parsed = httpx2.URL(url)
    except httpx2.InvalidURL as exc:
        raise PolicyViolation(url, f"not a valid URL ({exc})") from None
    if parsed.scheme not in ("http", "https"):
        scheme = parsed.scheme or "(none)"
        raise PolicyViolation(url, f"scheme {scheme} is not allowed (http and https only)")
    if not parsed.host:
        raise PolicyViolation(url, "the URL has no host")


async def _one_chunk(data: bytes) -> AsyncIterator[bytes]:
    yield data


class Exchanger:
    """Sends requests for one Fetcher: its client, its pacer, its settings."""

    def __init__(self, client: httpx2.AsyncClient, pacer: Pacer, settings: FetchSettings) -> None:
        self._client = client
        self.pacer = pacer
        self.settings = settings

    async def exchange(
        self,
        url: str,
        headers: Mapping[str, str],
        deadline: Deadline,
        *,
        retries: int,
        robots: bool = False,
    ) -> Reply:
        """One request, retried on connection errors, 429 and 5xx within the limits."""
        check_scheme(url)
        attempt = 0
        while True:
            reply: Reply | None = None
            try:
                reply = await self._attempt(url, headers, deadline, robots=robots)
                if reply.status not in RETRY_STATUSES:
                    return reply
                failure = f"HTTP {reply.status}"
                wait = parse_retry_after(reply.headers.get("retry-after"))
            except _Retryable as exc:
                failure, wait = exc.reason, None
            except PacingOverrun as exc:
                raise OutOfTime(
                    url,
                    f"no complete answer within {deadline.seconds:g} s (the host's "
                    f"{exc.interval:g} s between requests would outlast it)",
                ) from None
            limit = self.settings.max_retry_after
            if wait is not None and wait > limit:
                raise FetchError(
                    url, f"{failure} with Retry-After {wait:g} s (over the {limit:g} s limit)"
                )
            if attempt >= retries:
                if reply is not None:
                    return Reply(reply.url, reply.status, reply.headers, attempts=attempt + 1)
                tries = f" after {attempt + 1} attempts" if attempt else ""
                raise FetchError(url, f"{failure}{tries}")
            delay = wait if wait is not None else backoff(attempt)
            if delay > deadline.remaining():
                raise FetchError(
                    url, f"{failure}; no time left to retry within {deadline.seconds:g} s"
                )
            await asyncio.sleep(delay)
            attempt += 1

    async def _attempt(
        self, url: str, headers: Mapping[str, str], deadline: Deadline, *, robots: bool
    ) -> Reply:
        """Send once, in the host's pacing slot, and read what the policy lets us read."""
        async with self.pacer.slot(httpx2.URL(url).host, deadline):
            try:
                async with asyncio.timeout_at(deadline.when):
                    request = self._client.build_request("GET", url, headers=headers)
                    response = await self._client.send(request, stream=True)
                    try:
                        return await self._read(url, response, robots=robots)
                    finally:
                        await response.aclose()
            except TimeoutError:
                raise FetchError(url, f"no complete answer within {deadline.seconds:g} s") from None
            except AddressRefused as exc:
                raise PolicyViolation(url, exc.reason) from None
            except LimitExceeded as exc:
                raise PolicyViolation(url, exc.reason) from None
            except ResolutionFailed as exc:
                raise HostNotFound(url, exc.reason) from None
            except httpx2.ConnectTimeout:
                raise _Retryable("connection timed out") from None
            except httpx2.ReadTimeout:
                raise FetchError(
                    url, f"read timed out ({self.settings.read_timeout:g} s)"
                ) from None
            except httpx2.TimeoutException as exc:  # write or pool timeout
                raise FetchError(url, f"timed out ({type(exc).__name__})") from None
            except httpx2.ProtocolError as exc:
                if _dropped(exc):
                    raise _Retryable(f"connection failed: {exc}") from None
                # A malformed answer (a 200 KB header, bad framing) is the same next time.
                raise FetchError(url, f"unusable response: {exc or type(exc).__name__}") from None
            except httpx2.TransportError as exc:
                raise _Retryable(f"connection failed: {exc or type(exc).__name__}") from None

    async def _read(self, url: str, response: httpx2.Response, *, robots: bool) -> Reply:
        status, headers = response.status_code, response.headers
        if status in REDIRECT_STATUSES and "location" in headers:
            try:
                location = str(response.url.join(headers["location"]))
            except httpx2.InvalidURL:
                raise PolicyViolation(url, "redirect to an invalid URL") from None
            return Reply(url, status, headers, location=location)
        if not 200 <= status < 300:
            return Reply(url, status, headers)
        media_type, charset = parse_content_type(headers.get("content-type"))
        if not robots and (why := type_refusal(media_type, accept_pdf=self.settings.accept_pdf)):
            raise PolicyViolation(url, why)
        if response.is_stream_consumed:  # a test transport built the body in memory, decoded
            chunks, encoding = _one_chunk(response.content), None
        else:
            chunks, encoding = response.aiter_raw(), headers.get("content-encoding")
        body = await read_capped(chunks, encoding, self.settings.max_bytes)
        return Reply(
            url, status, headers, body=body.data, truncated=body.truncated,
            media_type=media_type, charset=charset,
        )  # fmt: skip


def _dropped(exc: httpx2.ProtocolError) -> bool:
    """A connection closed before or during the answer: that, unlike bad framing, may pass."""
    return isinstance(exc, httpx2.RemoteProtocolError) and "disconnect" in str(exc).lower()
