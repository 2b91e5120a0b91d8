"""The SSRF guard, enforced where the socket is opened.

Why in the network backend: a check made before the request, with the HTTP library then
resolving the name again, can be slipped past by DNS rebinding (the second answer is
127.0.0.1). Here the name is resolved once, through the injectable ``Resolver``; every
answer is checked; and the socket is opened to the checked IP literal. httpcore still hands
the origin's *name* to ``start_tls``, so SNI and certificate checks use the name, and the
Host header is untouched. Every hop of every fetch (robots.txt included) connects through
this backend, so this is the one place the address rule lives.
"""

from __future__ import annotations

import asyncio
import functools
import socket
import ssl
from collections.abc import Awaitable, Callable, Iterable, Sequence
from types import TracebackType
from typing import Any

import anyio
import httpcore2
import httpx2
from httpcore2 import AsyncNetworkBackend, AsyncNetworkStream

from assay.closing import close_fully
from assay.gather.fetch.address import AllowList, IPAddress, parse_host_address, refusal

Resolver = Callable[[str], Awaitable[Sequence[str]]]
"""An async callable turning a host name into IP address strings (tests map names here)."""

_SOCKET_OPTION = (
    tuple[int, int, int] | tuple[int, int, bytes | bytearray] | tuple[int, int, None, int]
)


class AddressRefused(Exception):
    """The guard refuses to connect; ``reason`` names the address and why."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class ResolutionFailed(Exception):
    """The host name has no address the resolver could give."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


async def system_resolver(host: str) -> list[str]:
    """The operating system's resolver (getaddrinfo), answers in its order, deduplicated."""
    loop = asyncio.get_running_loop()
    infos = await loop.getaddrinfo(host, None, type=socket.SOCK_STREAM)
    seen: dict[str, None] = {}
    for info in infos:
        seen.setdefault(str(info[4][0]), None)
    return list(seen)


class Guard:
    """Resolves a host once and returns only addresses the policy lets a fetch reach."""

    def __init__(self, allow: AllowList, resolver: Resolver) -> None:
        self.allow = allow
        self.resolver = resolver

    async def addresses(self, host: str) -> list[IPAddress]:
        """The checked addresses for ``host``; raises AddressRefused or ResolutionFailed.

        One refused answer refuses the host: a name that resolves to both a public and a
        private address is exactly what a rebinding attack looks like.
        """
        try:
            literal = parse_host_address(host)
        except ValueError as exc:
            raise AddressRefused(str(exc)) from None
        if literal is not None:
            found: list[IPAddress] = [literal]
        else:
            found = await self._resolve(host)
        if literal is None and self.allow.allows_name(host):
            return found
        for addr in found:
            reason = refusal(addr, self.allow)
            if reason:
                raise AddressRefused(reason)
        return found

    async def _resolve(self, host: str) -> list[IPAddress]:
        try:
            answers = await self.resolver(host)
            found = [parse_host_address(a) for a in answers]
        except (OSError, ValueError) as exc:
            raise ResolutionFailed(f"could not resolve {host}: {exc}") from None
        addresses = [a for a in found if a is not None]
        if not addresses or len(addresses) != len(found):
            raise ResolutionFailed(f"could not resolve {host} to an IP address")
        return addresses


class CountingStream(AsyncNetworkStream):
    """A stream that adds every byte it receives to its backend's ``bytes_received``."""

    def __init__(self, inner: AsyncNetworkStream, backend: GuardedBackend) -> None:
        self._inner = inner
        self._backend = backend

    async def read(self, max_bytes: int, timeout: float | None = None) -> bytes:  # noqa: ASYNC109
        data = await self._inner.read(max_bytes, timeout)
        self._backend.bytes_received += len(data)
        return data

    async def write(self, buffer: bytes, timeout: float | None = None) -> None:  # noqa: ASYNC109
        await self._inner.write(buffer, timeout)

    async def aclose(self) -> None:
        await self._inner.aclose()

    async def start_tls(
        self,
        ssl_context: ssl.SSLContext,
        server_hostname: str | None = None,
        timeout: float | None = None,  # noqa: ASYNC109 - httpcore's interface
    ) -> AsyncNetworkStream:
        inner = await self._inner.start_tls(ssl_context, server_hostname, timeout)
        return CountingStream(inner, self._backend)

    def get_extra_info(self, info: str) -> Any:
        return self._inner.get_extra_info(info)


class GuardedBackend(AsyncNetworkBackend):
    """httpcore's network backend, resolving through the Guard and dialling checked IPs."""

    def __init__(self, guard: Guard, inner: AsyncNetworkBackend | None = None) -> None:
        self.guard = guard
        self._inner = inner or httpcore2.AnyIOBackend()
        self.bytes_received = 0
        """Every byte read from any socket: lets tests show a capped body was not drained."""

    async def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,  # noqa: ASYNC109 - httpcore's interface
        local_address: str | None = None,
        socket_options: Iterable[_SOCKET_OPTION] | None = None,
    ) -> AsyncNetworkStream:
        try:
            with anyio.fail_after(timeout):
                addresses = await self.guard.addresses(host)
        except TimeoutError:
            raise httpcore2.ConnectTimeout(f"resolving {host} timed out") from None
        last: Exception | None = None
        for addr in addresses:
            try:
                stream = await self._inner.connect_tcp(
                    str(addr), port, timeout, local_address, socket_options
                )
            except (httpcore2.ConnectError, httpcore2.ConnectTimeout) as exc:
                last = exc
                continue
            return CountingStream(stream, self)
        assert last is not None
        raise last

    async def connect_unix_socket(
        self,
        path: str,
        timeout: float | None = None,  # noqa: ASYNC109 - httpcore's interface
        socket_options: Iterable[_SOCKET_OPTION] | None = None,
    ) -> AsyncNetworkStream:
        raise AddressRefused("unix sockets are not fetched")

    async def sleep(self, seconds: float) -> None:
        await self._inner.sleep(seconds)


@functools.cache
def verifying_context() -> ssl.SSLContext:
    """The process's one TLS context for fetching: certificates verified against the system's
    CAs (or SSL_CERT_FILE / SSL_CERT_DIR, read when it is first made). Loading the CA bundle
    costs about 35 ms of CPU, and every fetcher and search client made two per transport (one
    for the pool httpx2 builds and this class replaces): 18% of the CPU py-spy sampled over
    tests/protocols. An SSLContext is safe to share between connections, threads and loops."""
    return httpx2.create_ssl_context()


class GuardedTransport(httpx2.AsyncHTTPTransport):
    """httpx2's own transport, with its connection pool dialling through a GuardedBackend.

    httpx2 does not take a network backend, so the pool is rebuilt with the same settings
    plus ours. Proxies are never used (a proxy would make the guard check the proxy's
    address instead of the target's); certificate settings from the environment still are.
    """

    def __init__(self, backend: GuardedBackend, *, http2: bool, limits: httpx2.Limits) -> None:
        context = verifying_context()
        super().__init__(http2=http2, limits=limits, trust_env=False, verify=context)
        self._pool = httpcore2.AsyncConnectionPool(
            ssl_context=context,
            max_connections=limits.max_connections,
            max_keepalive_connections=limits.max_keepalive_connections,
            keepalive_expiry=limits.keepalive_expiry,
            http1=True,
            http2=http2,
            network_backend=backend,
        )
        self.backend = backend

    async def aclose(self) -> None:
        """Every pooled connection closed, even when the run is cancelled meanwhile
        (``assay.closing`` says why httpcore's own closing is cut short)."""
        await close_fully(self._pool.aclose)

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None = None,
        exc_value: BaseException | None = None,
        traceback: TracebackType | None = None,
    ) -> None:
        await self.aclose()


class _EndpointBackend(GuardedBackend):
    """A GuardedBackend whose refusals are connection errors, as an API client expects."""

    async def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,  # noqa: ASYNC109 - httpcore's interface
        local_address: str | None = None,
        socket_options: Iterable[_SOCKET_OPTION] | None = None,
    ) -> AsyncNetworkStream:
        try:
            return await super().connect_tcp(host, port, timeout, local_address, socket_options)
        except (AddressRefused, ResolutionFailed) as exc:
            raise httpcore2.ConnectError(exc.reason) from None


def guarded_client(
    allow_hosts: Iterable[str],
    *,
    resolver: Resolver | None = None,
    timeout: float = 30.0,
) -> httpx2.AsyncClient:
    """An HTTP client that reaches only what a fetch may reach: every connection goes
    through the Guard, under ``allow_hosts``; a refused address is an ``httpx2.ConnectError``
    naming why. For endpoints other than pages (a search provider's API, a model endpoint a
    request chose); it follows no redirects."""
    guard = Guard(AllowList.parse(allow_hosts), resolver or system_resolver)
    limits = httpx2.Limits(max_connections=16, max_keepalive_connections=8)
    transport = GuardedTransport(_EndpointBackend(guard), http2=False, limits=limits)
    return httpx2.AsyncClient(transport=transport, timeout=timeout, trust_env=False)
