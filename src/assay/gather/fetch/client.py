"""The Fetcher: one shared httpx2 client, and the policy every fetch passes.

One ``fetch(url)``::

    cache: an entry whose every hop this Fetcher's policy allows (scheme, address) →
           fresh → return it
    for each hop (the URL, then every redirect, at most max_redirects):
        scheme → domains → robots.txt → [pacing slot → address guard → send → type → body]
                                        └──── retried on connection errors, 429, 5xx ────┘
    store a complete 200 in the cache

Each rule lives in one module and only there: ``guard.py``/``address.py`` (where a socket
may go, checked in the network backend on the address actually dialled), ``assay/domains.py``
(``--include-domain`` / ``--exclude-domain``, checked on every hop), ``robots.py``,
``pacing.py``, ``limits.py`` (media type and size), ``retry.py`` and ``cache.py``. This
module composes them and turns what they raise into ``PolicyViolation`` (the policy
refuses) or ``FetchError`` (the network or the server failed), each with a short reason.

The total deadline (``total_timeout``) bounds the fetch's own time: the network, robots.txt
included, and the host's pacing interval (its Crawl-delay), which fails the fetch at once
when it would outlast the deadline (``pacing.PacingOverrun``: four redirect hops on a host
with a 20 s Crawl-delay cannot make a 10 s fetch take 80 s). Waiting behind our own other
requests (the host's queue, the global concurrency cap) is queueing, not the host's
doing, and is not counted, so many pages queued behind one host do not all time out.

The cache is shared by every run of a home, and runs differ in policy (``--allow-host``):
an entry is served, or revalidated, only when this Fetcher would have been allowed to make
each of its hops, so a page one run could read never reaches a run that could not.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from types import MappingProxyType, TracebackType
from typing import Self

import httpx2

from assay.__about__ import PROJECT_URL, __version__
from assay.config import FetchSettings
from assay.domains import DomainRule
from assay.errors import FetchError, PolicyViolation
from assay.gather.fetch.address import AllowList
from assay.gather.fetch.cache import CacheEntry, PageCache
from assay.gather.fetch.exchange import Deadline, Exchanger, Reply, check_scheme
from assay.gather.fetch.guard import (
    AddressRefused,
    Guard,
    GuardedBackend,
    GuardedTransport,
    ResolutionFailed,
    Resolver,
    system_resolver,
)
from assay.gather.fetch.limits import ACCEPT_ENCODING, PDF_TYPE
from assay.gather.fetch.pacing import Pacer, pacing_is_shared
from assay.gather.fetch.page import FetchedPage
from assay.gather.fetch.robots import RobotsAnswer, RobotsPolicy

_ACCEPT = "text/html,application/xhtml+xml,text/plain;q=0.9,application/json;q=0.9,text/*;q=0.8"


def default_user_agent() -> str:
    return f"assay/{__version__} (+{PROJECT_URL})"


class Fetcher:
    """Fetches pages under the fetch policy; one per run (or shared), used as ``async with``.

    ``allow_hosts`` names hosts, IPs and CIDRs the address guard lets through although they
    are not public (``127.0.0.0/8``, ``localhost``, ``lab.test``). ``resolver`` replaces the
    system resolver (tests map ``news.example`` to a lab address). A ``transport`` replaces
    the guarded one entirely, and with it the address guard: it is for tests only.
    ``domains`` is the run's include/exclude rule: a hop to a domain it refuses is a
    ``PolicyViolation`` before anything is sent, robots.txt included.
    Made inside ``pacing.shared_pacing()``, it paces domains together with every other
    Fetcher made there (concurrent runs of a batch); otherwise on its own.
    """

    def __init__(
        self,
        settings: FetchSettings,
        *,
        allow_hosts: Sequence[str] = (),
        cache_path: Path | None = None,
        resolver: Resolver | None = None,
        transport: httpx2.AsyncBaseTransport | None = None,
        user_agent: str | None = None,
        domains: DomainRule | None = None,
    ) -> None:
        self.settings = settings
        self.domains = domains or DomainRule()
        self.user_agent = user_agent or default_user_agent()
        self.backend: GuardedBackend | None = None
        if transport is None:
            guard = Guard(AllowList.parse(allow_hosts), resolver or system_resolver)
            self.backend = GuardedBackend(guard)
            limits = httpx2.Limits(
                max_connections=2 * settings.max_concurrency,
                max_keepalive_connections=settings.max_concurrency,
            )
            transport = GuardedTransport(self.backend, http2=True, limits=limits)
        accept = f"{_ACCEPT},{PDF_TYPE};q=0.5" if settings.accept_pdf else _ACCEPT
        self._client = httpx2.AsyncClient(
            transport=transport,
            follow_redirects=False,
            trust_env=False,
            timeout=httpx2.Timeout(
                connect=settings.connect_timeout,
                read=settings.read_timeout,
                write=settings.read_timeout,
                pool=settings.total_timeout,
            ),
            headers={
                "User-Agent": self.user_agent,
                "Accept": accept,
                "Accept-Encoding": ACCEPT_ENCODING,
            },
        )
        self.pacer = Pacer(
            settings.min_domain_interval, settings.max_concurrency, shared=pacing_is_shared()
        )
        self._exchanger = Exchanger(self._client, self.pacer, settings)
        self.robots = RobotsPolicy(
            self._fetch_robots,
            self.pacer.set_crawl_delay,
            max_crawl_delay=settings.max_retry_after,  # the longest a server may make us wait
        )
        self._cache = PageCache(cache_path) if cache_path is not None else None

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        try:
            await self._client.aclose()
        finally:  # a cancellation that arrives while the client closes still closes the cache
            if self._cache is not None:
                self._cache.close()

    async def fetch_text(self, url: str) -> str:
        """``fetch(url)``, decoded with the page's charset (UTF-8 when none or unknown)."""
        return (await self.fetch(url)).text()

    async def fetch(self, url: str) -> FetchedPage:
        """Fetch ``url`` under the policy; raises PolicyViolation or FetchError with a reason."""
        entry = await self._cache.get(url) if self._cache is not None else None
        if entry is not None and not await self._allowed_hops(entry):
            entry = None  # fetched under another policy: ask the network, under ours
        if entry is not None and entry.is_fresh(self.settings.cache_ttl, time.time()):
            return entry.page
        deadline = Deadline(self.settings.total_timeout)
        conditional = entry.validators() if entry is not None else {}
        current, redirects = url, list[str]()
        while True:
            try:
                reply = await self._hop(current, conditional, deadline)
            except FetchError as exc:  # name the URL asked for, and the hop that failed
                if exc.url == url:
                    raise
                reason = exc.reason if current == url else f"redirect to {current}: {exc.reason}"
                raise type(exc)(url, reason) from None
            if reply.location is None:
                return await self._finish(url, reply, tuple(redirects), entry)
            if len(redirects) >= self.settings.max_redirects:
                raise PolicyViolation(url, f"more than {self.settings.max_redirects} redirects")
            current = reply.location
            redirects.append(current)

    async def _allowed_hops(self, entry: CacheEntry) -> bool:
        """Whether this Fetcher's policy allows every hop that produced a cached page."""
        for hop in (entry.page.url, *entry.page.redirects, entry.page.final_url):
            try:
                check_scheme(hop)
                if self.domains.refusal(hop) is not None:
                    return False
                if self.backend is not None:
                    await self.backend.guard.addresses(httpx2.URL(hop).host)
            except (PolicyViolation, AddressRefused, ResolutionFailed):
                return False
        return True

    async def _hop(self, url: str, headers: Mapping[str, str], deadline: Deadline) -> Reply:
        check_scheme(url)  # exchange() checks every request; this keeps robots.txt from bad URLs
        refused = self.domains.refusal(url)
        if refused is not None:
            raise PolicyViolation(url, refused)
        try:
            async with asyncio.timeout_at(deadline.when):
                refusal = await self.robots.refusal(url, deadline)
        except TimeoutError:
            raise FetchError(url, f"no complete answer within {deadline.seconds:g} s") from None
        if refusal:
            raise PolicyViolation(url, refusal)
        return await self._exchanger.exchange(url, headers, deadline, retries=self.settings.retries)

    async def _finish(
        self, url: str, reply: Reply, redirects: tuple[str, ...], entry: CacheEntry | None
    ) -> FetchedPage:
        where = f"redirect to {reply.url}: " if reply.url != url else ""
        if reply.status == 304 and entry is not None and self._cache is not None:
            return await self._cache.refresh(entry, reply.headers)
        if not 200 <= reply.status < 300:
            tries = f" after {reply.attempts} attempts" if reply.attempts > 1 else ""
            raise FetchError(url, f"{where}HTTP {reply.status}{tries}")
        page = FetchedPage(
            url=url,
            final_url=reply.url,
            status=reply.status,
            content_type=reply.media_type,
            charset=reply.charset,
            body=reply.body,
            headers=MappingProxyType(dict(reply.headers.items())),
            from_cache=False,
            redirects=redirects,
            truncated=reply.truncated,
        )
        if self._cache is not None:
            await self._cache.put(page)
        return page

    async def _fetch_robots(self, robots_url: str, page: Deadline | None) -> RobotsAnswer:
        """GET a robots.txt: no retries, any media type, redirects followed under the policy.

        Its own deadline bounds the server (too slow is "unreachable", a rule kept for the
        run); its waits are bounded by the ``page``'s deadline too (``OutOfTime``, not kept).
        """
        deadline = Deadline(self.settings.total_timeout, within=page)
        current = robots_url
        for hop in range(self.settings.max_redirects + 1):
            try:
                reply = await self._exchanger.exchange(
                    current, {}, deadline, retries=0, robots=True
                )
            except PolicyViolation as exc:
                if hop == 0:
                    raise
                raise FetchError(robots_url, f"redirected to a refused URL: {exc.reason}") from None
            if reply.location is None:
                return RobotsAnswer(reply.status, reply.body)
            current = reply.location
        raise FetchError(robots_url, f"more than {self.settings.max_redirects} redirects")
