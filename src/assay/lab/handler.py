"""The request handler every lab site shares: pages, robots.txt, search and faults.

Routes: ``/``, ``/robots.txt``, ``/pages/<slug>``, ``/search?q=&format=json&pageno=``,
the scholarly APIs' imitations (``lab/scholarly.py``: ``/arxiv/…``, ``/openalex/…``,
``/s2/…``, ``/pubmed/…``);
with faults on, also ``/private/<slug>``, ``/inject/<slug>`` and ``/fault/<name>``:
slow, 429, 500, redirect-loop, redirect-private, wrong-type, huge, gzip-bomb.
"""

from __future__ import annotations

import hashlib
import json
import socket
from collections.abc import Callable, Iterable
from http.server import BaseHTTPRequestHandler
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qs, urlsplit

from assay.lab import scholarly
from assay.lab.faults import HUGE_BYTES, gzip_bomb, huge_page_chunks
from assay.lab.pages import (
    ROBOTS_TXT,
    render_index,
    render_message,
    render_page,
    render_search,
    siblings_of,
)

if TYPE_CHECKING:
    from assay.lab.server import Lab, SiteServer

HTML = "text/html; charset=utf-8"
RESULTS_PER_PAGE = 10
MAX_RESULTS = 100
MAX_SLOW_SECONDS = 60.0


class LabHandler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "AssayLab/1.0"
    timeout = 10  # idle keep-alive connections are closed after this many seconds
    server: SiteServer

    def setup(self) -> None:
        super().setup()
        # Headers and body go out in separate writes; without this, Nagle's algorithm and
        # delayed ACKs add ~40 ms to every keep-alive request.
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet: the lab keeps its own request log (``Lab.hits``)."""

    def do_GET(self) -> None:
        self._handle(head=False)

    def do_HEAD(self) -> None:
        self._handle(head=True)

    @property
    def lab(self) -> Lab:
        return self.server.lab

    @property
    def site(self) -> int:
        return self.server.site

    def _handle(self, *, head: bool) -> None:
        self._head = head
        self.lab.record(self.site, self.path)
        parts = urlsplit(self.path)
        self._query = parse_qs(parts.query)
        try:
            self._route(parts.path)
        except (BrokenPipeError, ConnectionResetError, TimeoutError):
            self.close_connection = True

    def _route(self, path: str) -> None:
        section, _, rest = path.lstrip("/").partition("/")
        if path == "/":
            self._send(200, render_index(self.site, self.lab.site_pages[self.site]))
        elif path == "/robots.txt":
            self._robots()
        elif path == "/search":
            self._search()
        elif section in ("arxiv", "openalex", "s2", "pubmed"):
            self._scholarly(path)
        elif section == "pages" and rest:
            self._page(rest, inject=False)
        elif self.lab.faults and section in {"private", "inject"} and rest:
            self._page(rest, inject=section == "inject")
        elif self.lab.faults and section == "fault" and rest in _FAULTS:
            _FAULTS[rest](self)
        else:
            self._not_found()

    # plain content

    def _robots(self) -> None:
        status = self.lab.robots_status.get(self.site + 1)
        if status is None:
            self._send(200, ROBOTS_TXT, "text/plain; charset=utf-8")
        else:
            self._send(status, f"robots.txt: status {status}\n", "text/plain; charset=utf-8")

    def _page(self, slug: str, *, inject: bool) -> None:
        page = self.lab.page(self.site, slug)
        if page is None:
            self._not_found()
            return
        siblings = siblings_of(page, self.lab.site_pages[self.site])
        body = render_page(page, siblings, inject=inject).encode("utf-8")
        # A strong validator, so clients can revalidate a cached copy with a 304.
        etag = '"' + hashlib.sha256(body).hexdigest()[:32] + '"'
        if self.headers.get("If-None-Match") == etag:
            self.send_response(304)
            self.send_header("ETag", etag)
            self.end_headers()
            return
        self._send(200, body, HTML, {"ETag": etag, "Cache-Control": "max-age=0"})

    def _scholarly(self, path: str) -> None:
        pmid = path.removeprefix("/pubmed/pages/").strip("/")
        if path.startswith("/pubmed/pages/"):
            paper = next((p for p in self.lab.papers if p.pmid == pmid), None)
            if paper is None:
                self._not_found()
                return
            siblings = siblings_of(paper.page, self.lab.site_pages[paper.page.site])
            self._send(200, render_page(paper.page, siblings))
            return
        answer = scholarly.route(self.lab, path, self._query, self.headers)
        if answer is None:
            self._not_found()
            return
        body = answer.body if isinstance(answer.body, str) else json.dumps(answer.body)
        self._send(answer.status, body, answer.content_type)

    def _not_found(self) -> None:
        self._send(404, render_message(self.site, "Not found", "There is no page here."))

    def _search(self) -> None:
        query = self._param("q", "")
        try:
            pageno = int(self._param("pageno", "1"))
        except ValueError:
            pageno = 0
        if pageno < 1:
            self._send(400, '{"error": "pageno must be a positive integer"}', "application/json")
            return
        start = (pageno - 1) * RESULTS_PER_PAGE
        hits = self.lab.index.search(query, limit=MAX_RESULTS) if start < MAX_RESULTS else []
        results: list[dict[str, Any]] = []
        rows: list[tuple[str, str, str]] = []
        for rank, hit in enumerate(hits[start : start + RESULTS_PER_PAGE], start=start + 1):
            url = self.lab.url_for(hit.doc_id) or hit.url
            results.append(
                {
                    "url": url,
                    "title": hit.title,
                    "content": hit.snippet,
                    "engine": "lab",
                    "engines": ["lab"],
                    "positions": [rank],
                    "category": "general",
                    "score": hit.score,
                    "publishedDate": None,
                }
            )
            rows.append((url, hit.title, hit.snippet))
        if self._param("format", "html") != "json":
            self._send(200, render_search(self.site, query, rows))
            return
        payload = {
            "query": query,
            "number_of_results": len(hits),
            "results": results,
            "answers": [],
            "corrections": [],
            "infoboxes": [],
            "suggestions": [],
            "unresponsive_engines": [],
        }
        self._send(200, json.dumps(payload), "application/json")

    # faults

    def _slow(self) -> None:
        try:
            seconds = min(max(float(self._param("seconds", "2")), 0.0), MAX_SLOW_SECONDS)
        except ValueError:
            self._send(400, "seconds must be a number\n", "text/plain; charset=utf-8")
            return
        self.lab.stopping.wait(seconds)
        self._send(200, render_message(self.site, "A slow page", f"Served after {seconds} s."))

    def _too_many(self) -> None:
        if self.lab.counters.bump(self.client_address[0], self.path) == 0:
            self._send(429, "slow down\n", "text/plain; charset=utf-8", {"Retry-After": "1"})
        else:
            self._send(200, render_message(self.site, "Rate limit", "Thanks for waiting."))

    def _server_error(self) -> None:
        if self.lab.counters.bump(self.client_address[0], self.path) < 2:
            self._send(500, "internal error\n", "text/plain; charset=utf-8")
        else:
            self._send(200, render_message(self.site, "Recovered", "The server recovered."))

    def _redirect_loop(self) -> None:
        self._redirect(f"{self.lab.sites[self.site]}{self.path}")

    def _redirect_private(self) -> None:
        pages = self.lab.site_pages[self.site]
        slug = pages[0].slug if pages else "index"
        self._redirect(f"http://127.0.0.1:{self.lab.port}/pages/{slug}")

    def _wrong_type(self) -> None:
        self._send(200, bytes(range(256)) * 16, "application/octet-stream")

    def _huge(self) -> None:
        self._stream(huge_page_chunks(), sum_of=None, headers={})

    def _gzip_bomb(self) -> None:
        bomb = gzip_bomb()
        self._stream(bomb.chunks(), sum_of=bomb.length, headers={"Content-Encoding": "gzip"})

    # responses

    def _param(self, name: str, default: str) -> str:
        values = self._query.get(name)
        return values[0] if values else default

    def _redirect(self, location: str) -> None:
        self._send(302, "", "text/plain; charset=utf-8", {"Location": location})

    def _send(
        self,
        status: int,
        body: str | bytes,
        content_type: str = HTML,
        headers: dict[str, str] | None = None,
    ) -> None:
        data = body.encode("utf-8") if isinstance(body, str) else body
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data)))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        if not self._head:
            self.wfile.write(data)

    def _stream(
        self, chunks: Iterable[bytes], *, sum_of: int | None, headers: dict[str, str]
    ) -> None:
        """Send chunks with a Content-Length, stopping (and closing) if the lab stops."""
        length = sum_of if sum_of is not None else HUGE_BYTES
        self.send_response(200)
        self.send_header("Content-Type", HTML)
        self.send_header("Content-Length", str(length))
        for name, value in headers.items():
            self.send_header(name, value)
        self.end_headers()
        if self._head:
            return
        for chunk in chunks:
            if self.lab.stopping.is_set():
                self.close_connection = True
                return
            self.wfile.write(chunk)


_FAULTS: dict[str, Callable[[LabHandler], None]] = {
    "slow": LabHandler._slow,
    "429": LabHandler._too_many,
    "500": LabHandler._server_error,
    "redirect-loop": LabHandler._redirect_loop,
    "redirect-private": LabHandler._redirect_private,
    "wrong-type": LabHandler._wrong_type,
    "huge": LabHandler._huge,
    "gzip-bomb": LabHandler._gzip_bomb,
}
