"""robots.txt: fetched once per origin, kept for the Fetcher's life, obeyed for ``assay``.

RFC 9309's failure rules, as the brief sets them: a 4xx answer (the file does not exist or
is not for us) allows everything; a 5xx answer, a timeout or a connection error disallows
everything on that origin for the rest of the run, because a site that cannot serve its
rules cannot be assumed to permit us. A Crawl-delay for ``assay`` (or ``*``) becomes the
host's pacing interval when it is longer than the default; one longer than
``max_crawl_delay`` (a site asking for an hour between requests) would stall a run, so that
host is treated as disallowed instead.

The robots.txt fetch is made for a page and within that page's deadline: when the page's
time runs out first (``OutOfTime``, or the caller's own timeout) nothing is remembered,
and the next page of the origin asks again.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

import httpx2
from protego import Protego

from assay.errors import FetchError, PolicyViolation
from assay.gather.fetch.exchange import Deadline, HostNotFound, OutOfTime

ROBOTS_TOKEN = "assay"  # noqa: S105 - a robots.txt user-agent token
ROBOTS_DISALLOWED = "disallowed by robots.txt"


@dataclass(frozen=True)
class RobotsAnswer:
    """What fetching /robots.txt gave: a final status and the body (empty unless 2xx)."""

    status: int
    body: bytes


RobotsFetch = Callable[[str, Deadline | None], Awaitable[RobotsAnswer]]
"""Fetches a robots.txt URL within the deadline of the page it is for (None: no page's);
raises FetchError when no answer came (timeout, refused)."""


@dataclass(frozen=True)
class _Rules:
    parser: Protego | None
    refusal: str | None  # set when the whole origin is off limits

    def refuses(self, url: str) -> str | None:
        if self.refusal:
            return self.refusal
        if self.parser is not None and not self.parser.can_fetch(url, ROBOTS_TOKEN):
            return ROBOTS_DISALLOWED
        return None


def origin_of(url: str) -> tuple[str, str, int]:
    """scheme, host, port: the key robots.txt files are kept under (RFC 9309 §2.3).

    Parsed by httpx2, like the request itself, so the key and the pacing host agree.
    """
    parsed = httpx2.URL(url)
    port = parsed.port or (443 if parsed.scheme == "https" else 80)
    return parsed.scheme, parsed.host, port


def robots_url(origin: tuple[str, str, int]) -> str:
    scheme, host, port = origin
    return str(httpx2.URL(scheme=scheme, host=host, port=port, path="/robots.txt"))


class RobotsPolicy:
    """Answers "may assay fetch this URL?", fetching each origin's robots.txt once."""

    def __init__(
        self,
        fetch: RobotsFetch,
        on_crawl_delay: Callable[[str, float], None],
        *,
        max_crawl_delay: float = 30.0,
    ) -> None:
        self._fetch = fetch
        self._on_crawl_delay = on_crawl_delay
        self._max_crawl_delay = max_crawl_delay
        self._rules: dict[tuple[str, str, int], _Rules] = {}
        self._locks: dict[tuple[str, str, int], asyncio.Lock] = {}

    async def refusal(self, url: str, deadline: Deadline | None = None) -> str | None:
        """Why robots.txt forbids ``url``, or None. Raises what the guard raises for the host,
        and ``OutOfTime`` when ``deadline`` (the page's) passes before robots.txt could be read.
        """
        key = origin_of(url)
        rules = self._rules.get(key)
        if rules is None:
            async with self._locks.setdefault(key, asyncio.Lock()):
                rules = self._rules.get(key)
                if rules is None:
                    rules = await self._load(key, deadline)
                    self._rules[key] = rules
        return rules.refuses(url)

    async def _load(self, key: tuple[str, str, int], deadline: Deadline | None) -> _Rules:
        host = key[1]
        try:
            answer = await self._fetch(robots_url(key), deadline)
        except (PolicyViolation, HostNotFound, OutOfTime):
            raise  # the host is refused or absent, or the page is out of time: not a rule
        except FetchError as exc:
            return _Rules(None, f"robots.txt unreachable ({exc.reason}), so disallowed")
        if 200 <= answer.status < 300:
            parser = Protego.parse(answer.body.decode("utf-8", errors="replace"))
            delay = float(parser.crawl_delay(ROBOTS_TOKEN) or 0)
            if delay > self._max_crawl_delay:
                limit = self._max_crawl_delay
                return _Rules(None, f"robots.txt Crawl-delay {delay:g} s is over our {limit:g} s")
            if delay:
                self._on_crawl_delay(host, delay)
            return _Rules(parser, None)
        if 400 <= answer.status < 500 and answer.status != 429:
            return _Rules(None, None)
        return _Rules(None, f"robots.txt unavailable (HTTP {answer.status}), so disallowed")
