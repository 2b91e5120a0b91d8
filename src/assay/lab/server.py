"""One threaded HTTP server per lab site, each on its own loopback address, same port.

The servers run in background threads; ``Lab.close`` stops them in well under a second,
cutting open connections and waking sleeping fault handlers.
"""

from __future__ import annotations

import ipaddress
import socket
import threading
import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager, suppress
from http.server import ThreadingHTTPServer
from pathlib import Path
from socketserver import TCPServer
from typing import Any

from assay.errors import BadInputError
from assay.gather.documents import Document
from assay.gather.index import LocalIndex
from assay.lab.corpus import load_corpus, plan_pages
from assay.lab.faults import FaultCounters
from assay.lab.handler import LabHandler
from assay.lab.pages import LabPage
from assay.lab.scholarly import paper_of

FIRST_ADDRESS = "127.0.0.2"
MAX_SITES = 200
_POLL = 0.05
_BIND_ATTEMPTS = 8


class SiteServer(ThreadingHTTPServer):
    """One site: knows its number and its lab, and tracks its connections for a fast stop."""

    daemon_threads = True

    def __init__(self, address: tuple[str, int], lab: Lab, site: int) -> None:
        self.lab = lab
        self.site = site
        self._conn_lock = threading.Lock()
        self._connections: dict[socket.socket, threading.Thread] = {}
        super().__init__(address, LabHandler)

    def server_bind(self) -> None:
        # HTTPServer.server_bind would look the address up in DNS (getfqdn); never do that.
        TCPServer.server_bind(self)
        self.server_name, self.server_port = str(self.server_address[0]), self.server_address[1]

    def process_request(self, request: Any, client_address: Any) -> None:
        thread = threading.Thread(
            target=self._serve_one, args=(request, client_address), daemon=True
        )
        with self._conn_lock:
            self._connections[request] = thread
        thread.start()

    def _serve_one(self, request: Any, client_address: Any) -> None:
        try:
            self.process_request_thread(request, client_address)
        finally:
            with self._conn_lock:
                self._connections.pop(request, None)

    def open_connections(self) -> int:
        with self._conn_lock:
            return len(self._connections)

    def cut_connections(self) -> list[threading.Thread]:
        with self._conn_lock:
            open_now = dict(self._connections)
        for conn in open_now:
            with suppress(OSError):
                conn.shutdown(socket.SHUT_RDWR)
        return list(open_now.values())


class Lab:
    """A running lab: its sites, its search URL (and the scholarly APIs' imitations:
    ``scholarly_settings``), the pages it serves and a request log."""

    def __init__(
        self,
        docs: Sequence[Document],
        *,
        sites: int,
        faults: bool,
        robots_status: Mapping[int, int] | None,
        port: int,
        first_address: str,
    ) -> None:
        self.faults = faults
        self.robots_status = dict(robots_status or {})
        self.counters = FaultCounters()
        self.stopping = threading.Event()
        self._log_lock = threading.Lock()
        self._log: list[tuple[str, str, float]] = []
        self.addresses = _site_addresses(first_address, sites)
        for key in self.robots_status:
            if not 1 <= key <= sites:
                raise BadInputError(f"robots_status names site {key}; sites are 1..{sites}")
        self._threads: list[threading.Thread] = []
        self.index = LocalIndex(":memory:")
        try:
            self.index.add_documents(docs)
            self._servers = _bind_all(self, self.addresses, port)
        except BaseException:
            self.index.close()
            raise
        self.port = self._servers[0].server_port
        self.sites = [f"http://{address}:{self.port}" for address in self.addresses]
        self.search_url = f"{self.sites[0]}/search"
        self.site_pages = plan_pages(docs, self.sites)
        self.pages: list[tuple[str, Document]] = [
            (p.url, p.doc) for site in self.site_pages for p in site
        ]
        self._by_slug = [{p.slug: p for p in site} for site in self.site_pages]
        every = [p for site in self.site_pages for p in site]
        self.papers = [paper_of(page, n) for n, page in enumerate(every, start=1)]
        self._by_doc = {p.doc.doc_id: p for site in self.site_pages for p in site}

    def start(self) -> None:
        for server in self._servers:
            thread = threading.Thread(
                target=server.serve_forever, kwargs={"poll_interval": _POLL}, daemon=True
            )
            thread.start()
            self._threads.append(thread)

    def close(self) -> None:
        """Stop every site, cut open connections, wait for handlers; idempotent."""
        self.stopping.set()
        if self._threads:  # stop every serve_forever loop at once, not one poll after another
            stoppers = [threading.Thread(target=server.shutdown) for server in self._servers]
            for stopper in stoppers:
                stopper.start()
            for stopper in stoppers:
                stopper.join()
        handlers = [t for server in self._servers for t in server.cut_connections()]
        for thread in handlers + self._threads:
            thread.join(timeout=2.0)
        for server in self._servers:
            server.server_close()
        self._threads.clear()
        self.index.close()

    def scholarly_settings(self) -> dict[str, str]:
        """``ScholarlySettings`` pointing every scholarly provider at the lab's imitation."""
        base = self.sites[0]
        return {
            "arxiv_url": f"{base}/arxiv/api/query",
            "openalex_url": f"{base}/openalex",
            "semantic_scholar_url": f"{base}/s2/graph/v1",
            "pubmed_url": f"{base}/pubmed/eutils",
            "pubmed_pages": f"{base}/pubmed/pages",
        }

    def page(self, site: int, slug: str) -> LabPage | None:
        return self._by_slug[site].get(slug)

    def url_for(self, doc_id: str) -> str | None:
        page = self._by_doc.get(doc_id)
        return page.url if page else None

    def record(self, site: int, target: str) -> None:
        with self._log_lock:
            self._log.append((self.sites[site], target, time.monotonic()))

    def hits(self, path_prefix: str = "") -> list[tuple[str, str, float]]:
        """(site URL, request target, monotonic time) of every request whose target starts
        with ``path_prefix``, oldest first."""
        with self._log_lock:
            return [hit for hit in self._log if hit[1].startswith(path_prefix)]

    def open_connections(self) -> int:
        """Client connections the sites hold open now (a keep-alive one included): lets a
        test show that a client closed every connection it opened."""
        return sum(server.open_connections() for server in self._servers)

    def reset(self) -> None:
        """Forget the request log and the fault counters."""
        with self._log_lock:
            self._log.clear()
        self.counters.reset()


@contextmanager
def serve_lab(
    corpus: Path | Sequence[Document],
    sites: int = 3,
    faults: bool = True,
    robots_status: Mapping[int, int] | None = None,
    *,
    port: int = 0,
    first_address: str = FIRST_ADDRESS,
) -> Iterator[Lab]:
    """Serve ``corpus`` as ``sites`` websites on loopback until the block ends.

    ``robots_status`` maps a 1-based site number to the status its /robots.txt returns
    instead of the normal file (e.g. ``{2: 404, 3: 500}``). ``port`` 0 picks a free port.
    """
    if not 1 <= sites <= MAX_SITES:
        raise BadInputError(f"sites must be between 1 and {MAX_SITES}, not {sites}")
    docs = load_corpus(corpus)
    lab = Lab(
        docs,
        sites=sites,
        faults=faults,
        robots_status=robots_status,
        port=port,
        first_address=first_address,
    )
    try:
        lab.start()
        yield lab
    finally:
        lab.close()


def _site_addresses(first: str, sites: int) -> list[str]:
    try:
        start = ipaddress.IPv4Address(first)
    except ValueError:
        raise BadInputError(f"not an IPv4 address: {first!r}") from None
    addresses = [start + i for i in range(sites)]
    for address in addresses:
        if not address.is_loopback:
            raise BadInputError(f"the lab binds loopback addresses only, not {address}")
    return [str(a) for a in addresses]


def _bind_all(lab: Lab, addresses: Sequence[str], port: int) -> list[SiteServer]:
    """Bind every site on one port; with port 0, retry until a port is free on all of them."""
    last: OSError | None = None
    for _ in range(_BIND_ATTEMPTS if port == 0 else 1):
        servers: list[SiteServer] = []
        try:
            chosen = port
            for site, address in enumerate(addresses):
                servers.append(SiteServer((address, chosen), lab, site))
                chosen = servers[0].server_port
            return servers
        except OSError as exc:
            last = exc
            for server in servers:
                server.server_close()
    raise BadInputError(f"cannot bind the lab on port {port or 'any'}: {last}")
