"""Who may talk to the server, what they may send, and the headers every answer carries.

- **Token.** With a token (required when the server binds a non-loopback address) every
  request, API and UI alike, must carry it: ``Authorization: Bearer T``, the
  ``assay_token`` cookie, or ``?token=T`` once (the UI then sets the cookie and redirects
  to the same page without it, so the token does not stay in the address bar). Tokens are
  compared as bytes, in constant time; the redirect is always a path on this origin.
- **Host.** The ``Host`` header is parsed, never matched by prefix: it must name a
  loopback address (127.0.0.0/8, ::1), ``localhost``, or one of the server's configured
  public names, so a web page cannot reach the server through DNS rebinding
  (``127.0.0.1.evil.example`` is a name, not an address). A server with a token and no
  public names answers any Host: the token is the gate.
- **Origin.** A state-changing request (POST, ...) from a browser must come from the
  server's own origin: the Origin's host and port, parsed, are the Host's.
- **Body.** A request body over ``max_body`` bytes is refused with 413 when its
  Content-Length says so, or as soon as that many bytes have arrived; it is never
  buffered whole.
- **Headers.** ``nosniff``, no framing, no referrer, and a Content-Security-Policy for
  answers that set none (pages set their own, with a per-request script nonce).
"""

from __future__ import annotations

import hmac
import ipaddress
import re
import secrets
from dataclasses import dataclass
from http.cookies import SimpleCookie
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qsl, quote, urlencode, urlsplit

if TYPE_CHECKING:  # annotations only: `assay mcp` uses is_loopback without the web extra
    from starlette.types import ASGIApp, Message, Receive, Scope, Send

TOKEN_COOKIE = "assay_token"  # noqa: S105  # a cookie name, not a secret
LOOPBACK_NAME = "localhost"
MAX_BODY_BYTES = 1_048_576  # a StartRun is a few KB; nothing the API takes comes near this
_SAFE_METHODS = frozenset({b"GET", b"HEAD", b"OPTIONS"})
DEFAULT_CSP = "default-src 'none'; frame-ancestors 'none'; sandbox"
_HEADERS = (
    (b"x-content-type-options", b"nosniff"),
    (b"x-frame-options", b"DENY"),
    (b"referrer-policy", b"no-referrer"),
)
# A Host header: a bracketed IPv6 address or a name/IPv4 of DNS characters, then a port.
_HOST = re.compile(
    r"(?:\[(?P<ip6>[0-9A-Fa-f:.]+)\]|(?P<name>[A-Za-z0-9._-]+))(?::(?P<port>\d{1,5}))?"
)
# What a redirect may keep of a path as it is: everything else is percent-encoded.
_PATH_SAFE = "/!$&'()*+,;=:@-._~"


def new_token() -> str:
    return secrets.token_urlsafe(24)


def is_loopback(host: str) -> bool:
    """Whether ``host`` (an address, bracketed or not, or a name) is loopback: an address
    in 127.0.0.0/8 or ::1, or exactly ``localhost``. By parsed address, never by prefix."""
    bare = host.strip()
    if bare.startswith("[") and bare.endswith("]"):
        bare = bare[1:-1]
    if bare.lower() == LOOPBACK_NAME:
        return True
    try:
        return ipaddress.ip_address(bare).is_loopback
    except ValueError:
        return False


def parse_host(value: str) -> tuple[str, int | None] | None:
    """A Host header's (host, port), the host lower-cased without brackets; None when it
    is not one (userinfo, spaces, a path, an empty name, a port out of range)."""
    match = _HOST.fullmatch(value.strip())
    if match is None:
        return None
    port = int(match["port"]) if match["port"] is not None else None
    if port is not None and port > 65535:
        return None
    host = match["ip6"] or match["name"]
    return host.lower(), port


def _origin(value: str) -> tuple[str, int | None] | None:
    parts = urlsplit(value.strip())
    try:
        port = parts.port
    except ValueError:
        return None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return None
    return parts.hostname.lower(), port


@dataclass(frozen=True)
class Guard:
    """The checks of the module docstring, for one server."""

    token: str | None
    public_names: frozenset[str] = frozenset()
    max_body: int = MAX_BODY_BYTES

    def token_ok(self, headers: dict[bytes, bytes], query: str) -> bool:
        if self.token is None:
            return True
        expected = _as_bytes(self.token)
        offered = [_bearer(headers.get(b"authorization", b""))]
        offered.append(_cookie(headers.get(b"cookie", b""), TOKEN_COOKIE))
        offered.append(dict(parse_qsl(query)).get("token"))
        return any(o is not None and hmac.compare_digest(_as_bytes(o), expected) for o in offered)

    def host_allowed(self, host: str) -> bool:
        return is_loopback(host) or host in self.public_names

    def host_ok(self, headers: dict[bytes, bytes]) -> bool:
        if self.token is not None and not self.public_names:
            return True  # reachable by any name from elsewhere: the token is the gate
        parsed = parse_host(headers.get(b"host", b"").decode("latin-1"))
        return parsed is not None and self.host_allowed(parsed[0])

    def origin_ok(self, method: bytes, headers: dict[bytes, bytes]) -> bool:
        origin = headers.get(b"origin")
        if method in _SAFE_METHODS or origin is None:
            return True  # not a browser's cross-site form or fetch
        source = _origin(origin.decode("latin-1"))
        host = parse_host(headers.get(b"host", b"").decode("latin-1"))
        return source is not None and source == host


class SecurityMiddleware:
    """Applies a ``Guard`` to every HTTP request and adds the security headers."""

    def __init__(self, app: ASGIApp, guard: Guard) -> None:
        self.app = app
        self.guard = guard

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = dict(scope.get("headers", []))
        query = scope.get("query_string", b"").decode("latin-1")
        method = scope.get("method", "GET").encode()
        if not self.guard.host_ok(headers):
            await _refuse(send, 421, "this server answers only its loopback or public names")
            return
        if not self.guard.token_ok(headers, query):
            await _refuse(send, 401, "a valid token is required")
            return
        if not self.guard.origin_ok(method, headers):
            await _refuse(send, 403, "cross-origin request refused")
            return
        if _declared_length(headers) > self.guard.max_body:
            await _refuse(send, 413, f"the request body is over {self.guard.max_body} bytes")
            return
        if self.guard.token and "token" in dict(parse_qsl(query)) and method == b"GET":
            await _set_cookie_and_redirect(send, scope, query, self.guard.token)
            return
        await self._within_limit(scope, receive, _with_headers(send))

    async def _within_limit(self, scope: Scope, receive: Receive, send: Send) -> None:
        """The app, reading a body that stops at the limit: the read that goes over raises
        a 413 HTTPException, which FastAPI answers (or, if it does not, this does)."""
        from starlette.exceptions import HTTPException

        too_large = f"the request body is over {self.guard.max_body} bytes"
        received = 0
        answered = False

        async def limited_receive() -> Message:
            nonlocal received
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > self.guard.max_body:
                    raise HTTPException(413, too_large)
            return message

        async def noting_send(message: Message) -> None:
            nonlocal answered
            answered = answered or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, limited_receive, noting_send)
        except HTTPException as exc:
            if exc.status_code != 413 or answered:
                raise
            await _refuse(send, 413, too_large)


def _declared_length(headers: dict[bytes, bytes]) -> int:
    value = headers.get(b"content-length", b"").strip()
    return int(value) if value.isdigit() else 0  # a malformed one: the server refuses it


def _with_headers(send: Send) -> Send:
    async def send_with_headers(message: Message) -> None:
        if message["type"] == "http.response.start":
            present = {name.lower() for name, _ in message.get("headers", [])}
            extra = [(k, v) for k, v in _HEADERS if k not in present]
            if b"content-security-policy" not in present:
                extra.append((b"content-security-policy", DEFAULT_CSP.encode()))
            message = {**message, "headers": [*message.get("headers", []), *extra]}
        await send(message)

    return send_with_headers


async def _refuse(send: Send, status: int, detail: str) -> None:
    body = ('{"detail": "' + detail + '"}').encode()
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [(b"content-type", b"application/json"), *_HEADERS],
        }
    )
    await send({"type": "http.response.body", "body": body})


def same_origin_path(path: str) -> str:
    """``path`` as a redirect target that can only ever be a path on this origin: one
    leading slash, then no slash or backslash (``//host`` and ``/\\host`` are other
    origins to a browser), with backslashes, controls and spaces percent-encoded."""
    encoded = quote(path, safe=_PATH_SAFE)  # "\\" -> %5C, tab -> %09, "%" -> %25
    return "/" + encoded.lstrip("/")


async def _set_cookie_and_redirect(send: Send, scope: Scope, query: str, token: str) -> None:
    rest = urlencode([(k, v) for k, v in parse_qsl(query) if k != "token"])
    location = same_origin_path(str(scope.get("path", "/"))) + (f"?{rest}" if rest else "")
    cookie = f"{TOKEN_COOKIE}={token}; Path=/; HttpOnly; SameSite=Strict"
    headers: list[Any] = [(b"location", location.encode()), (b"set-cookie", cookie.encode())]
    await send({"type": "http.response.start", "status": 303, "headers": [*headers, *_HEADERS]})
    await send({"type": "http.response.body", "body": b""})


def _as_bytes(text: str) -> bytes:
    """Text as compared: hmac.compare_digest takes non-ASCII only as bytes."""
    return text.encode("utf-8", "surrogatepass")


def _bearer(value: bytes) -> str | None:
    text = value.decode("latin-1")
    return text[7:].strip() if text.lower().startswith("bearer ") else None


def _cookie(value: bytes, name: str) -> str | None:
    jar: SimpleCookie = SimpleCookie()
    try:
        jar.load(value.decode("latin-1"))
    except Exception:  # a malformed Cookie header is no token
        return None
    morsel = jar.get(name)
    return morsel.value if morsel else None
