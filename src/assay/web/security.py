"""Who may talk to the server, and the headers every answer carries.

- **Token.** With a token (required when the server binds a non-loopback address) every
  request, API and UI alike, must carry it: ``Authorization: Bearer T``, the
  ``assay_token`` cookie, or ``?token=T`` once (the UI then sets the cookie and redirects
  to the same page without it, so the token does not stay in the address bar).
- **Host.** Without a token the server is loopback-only and answers only requests whose
  ``Host`` is a loopback name: a web page cannot reach it through DNS rebinding.
- **Origin.** A state-changing request (POST, ...) from a browser must come from the
  server's own origin: another site cannot start runs through the user's browser.
- **Headers.** ``nosniff``, no framing, no referrer, and a Content-Security-Policy for
  answers that set none (pages set their own, with a per-request script nonce).
"""

from __future__ import annotations

import hmac
import secrets
from dataclasses import dataclass
from http.cookies import SimpleCookie
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qsl, urlencode, urlsplit

if TYPE_CHECKING:  # annotations only: `assay mcp` uses is_loopback without the web extra
    from starlette.types import ASGIApp, Message, Receive, Scope, Send

TOKEN_COOKIE = "assay_token"  # noqa: S105  # a cookie name, not a secret
LOOPBACK_NAMES = frozenset({"localhost", "127.0.0.1", "::1"})
_SAFE_METHODS = frozenset({b"GET", b"HEAD", b"OPTIONS"})
DEFAULT_CSP = "default-src 'none'; frame-ancestors 'none'; sandbox"
_HEADERS = (
    (b"x-content-type-options", b"nosniff"),
    (b"x-frame-options", b"DENY"),
    (b"referrer-policy", b"no-referrer"),
)


def new_token() -> str:
    return secrets.token_urlsafe(24)


def is_loopback(host: str) -> bool:
    name = host.strip("[]").lower()
    return name in LOOPBACK_NAMES or name.startswith("127.")


def host_name(host_header: str) -> str:
    """The name of a Host header, without its port (IPv6 brackets kept off)."""
    parsed = urlsplit(f"//{host_header}")
    return parsed.hostname or ""


@dataclass(frozen=True)
class Guard:
    """The checks of the module docstring, for one server."""

    token: str | None

    def token_ok(self, headers: dict[bytes, bytes], query: str) -> bool:
        if self.token is None:
            return True
        offered = [_bearer(headers.get(b"authorization", b""))]
        offered.append(_cookie(headers.get(b"cookie", b""), TOKEN_COOKIE))
        offered.append(dict(parse_qsl(query)).get("token"))
        return any(o is not None and hmac.compare_digest(o, self.token) for o in offered)

    def host_ok(self, headers: dict[bytes, bytes]) -> bool:
        if self.token is not None:
            return True  # reachable by name from elsewhere: the token is the gate
        return is_loopback(host_name(headers.get(b"host", b"").decode("latin-1")))

    def origin_ok(self, method: bytes, headers: dict[bytes, bytes]) -> bool:
        origin = headers.get(b"origin")
        if method in _SAFE_METHODS or origin is None:
            return True  # not a browser's cross-site form or fetch
        netloc = urlsplit(origin.decode("latin-1")).netloc
        return netloc == headers.get(b"host", b"").decode("latin-1")


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
            await _refuse(send, 421, "this server answers loopback host names only")
            return
        if not self.guard.token_ok(headers, query):
            await _refuse(send, 401, "a valid token is required")
            return
        if not self.guard.origin_ok(method, headers):
            await _refuse(send, 403, "cross-origin request refused")
            return
        if self.guard.token and "token" in dict(parse_qsl(query)) and method == b"GET":
            await _set_cookie_and_redirect(send, scope, query, self.guard.token)
            return
        await self.app(scope, receive, _with_headers(send))


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


async def _set_cookie_and_redirect(send: Send, scope: Scope, query: str, token: str) -> None:
    rest = urlencode([(k, v) for k, v in parse_qsl(query) if k != "token"])
    path = "/" + str(scope.get("path", "/")).lstrip("/")  # never //other.host
    location = path + (f"?{rest}" if rest else "")
    cookie = f"{TOKEN_COOKIE}={token}; Path=/; HttpOnly; SameSite=Strict"
    headers: list[Any] = [(b"location", location.encode()), (b"set-cookie", cookie.encode())]
    await send({"type": "http.response.start", "status": 303, "headers": [*headers, *_HEADERS]})
    await send({"type": "http.response.body", "body": b""})


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
