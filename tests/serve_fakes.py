"""Test helpers for the server's hardening tests: a loopback endpoint that records what it
is sent, and a raw ASGI call (exact Host, path and body control, no client in between)."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Recorder:
    """What a fake model or search endpoint received: (method, path, Authorization)."""

    url: str
    requests: list[tuple[str, str, str]] = field(default_factory=list)

    def authorizations(self) -> list[str]:
        return [auth for _, _, auth in self.requests]


@contextmanager
def recording_endpoint() -> Iterator[Recorder]:
    """A real HTTP server on 127.0.0.1 that records every request and refuses it as an
    OpenAI-compatible endpoint does (400, an ``error`` object)."""
    recorder = Recorder(url="")

    class Handler(BaseHTTPRequestHandler):
        def _answer(self) -> None:
            length = int(self.headers.get("content-length") or 0)
            self.rfile.read(length)
            auth = self.headers.get("authorization") or self.headers.get("x-api-key") or ""
            recorder.requests.append((self.command, self.path, auth))
            body = json.dumps({"error": {"message": "refused", "type": "invalid_request"}})
            self.send_response(400)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(body)))
            self.end_headers()
            self.wfile.write(body.encode())

        do_GET = do_POST = _answer

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    recorder.url = f"http://127.0.0.1:{server.server_address[1]}"
    try:
        yield recorder
    finally:
        server.shutdown()
        server.server_close()


@dataclass
class Answer:
    status: int
    headers: dict[str, str]
    body: bytes
    chunks_read: int

    def json(self) -> Any:
        return json.loads(self.body)


async def asgi_call(
    app: Any,
    method: str,
    raw_path: bytes,
    *,
    headers: Sequence[tuple[bytes, bytes]] = (),
    chunks: Sequence[bytes] = (),
) -> Answer:
    """One HTTP request straight into the ASGI app, as uvicorn would hand it over."""
    from urllib.parse import unquote_to_bytes

    path, _, query = raw_path.partition(b"?")
    scope = {
        "type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": method,
        "scheme": "http", "path": unquote_to_bytes(path).decode("utf-8", "replace"),
        "raw_path": path, "query_string": query, "root_path": "",
        "headers": [(k.lower(), v) for k, v in headers],
        "client": ("127.0.0.1", 50000), "server": ("127.0.0.1", 8000),
    }  # fmt: skip
    pending = list(chunks)
    read = 0
    sent: list[dict[str, Any]] = []

    async def receive() -> dict[str, Any]:
        nonlocal read
        if not pending:
            return {"type": "http.request", "body": b"", "more_body": False}
        read += 1
        chunk = pending.pop(0)
        return {"type": "http.request", "body": chunk, "more_body": bool(pending)}

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    await app(scope, receive, send)
    start = next(m for m in sent if m["type"] == "http.response.start")
    body = b"".join(m.get("body", b"") for m in sent if m["type"] == "http.response.body")
    answer_headers = {k.decode("latin-1"): v.decode("latin-1") for k, v in start["headers"]}
    return Answer(start["status"], answer_headers, body, read)
