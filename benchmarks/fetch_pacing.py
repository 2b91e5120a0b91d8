"""Time the Fetcher on N pages spread over M lab sites, next to the pacing lower bound.

    .venv/bin/python benchmarks/fetch_pacing.py [--pages N] [--sites M] [--interval S]

Serves an in-memory corpus as M sites of the local lab (loopback only), fetches N pages
round-robin over the sites through one Fetcher (all requested at once, no cache), and
prints the wall time next to two lower bounds set by pacing alone:

* ``(ceil(N/M) - 1) × interval``: the busiest site's pages, one interval apart;
* ``ceil(N/M) × interval``: the same plus the robots.txt request that precedes them.

Not part of the test suite; it asserts nothing.
"""

from __future__ import annotations

import argparse
import asyncio
import math
import time

from assay.config import FetchSettings
from assay.gather.documents import Document, make_doc_id
from assay.gather.fetch import Fetcher
from assay.lab import serve_lab


def corpus(count: int) -> list[Document]:
    words = [
        "lantern",
        "harbor",
        "granite",
        "meridian",
        "tidewater",
        "copper",
        "valley",
        "field",
        "notes",
    ]
    docs = []
    for i in range(count):
        title = f"Benchmark page {i}"
        text = " ".join(words[(i + j) % len(words)] for j in range(300))
        docs.append(Document(doc_id=make_doc_id(f"bench#{i}"), title=title, text=text))
    return docs


async def fetch_all(urls: list[str], settings: FetchSettings) -> tuple[float, int]:
    async with Fetcher(settings, allow_hosts=["127.0.0.0/8"]) as fetcher:
        started = time.perf_counter()
        pages = await asyncio.gather(*(fetcher.fetch(url) for url in urls))
        wall = time.perf_counter() - started
    return wall, sum(len(p.body) for p in pages)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pages", "-n", type=int, default=20, help="pages to fetch (N)")
    parser.add_argument("--sites", "-m", type=int, default=5, help="lab sites (M)")
    parser.add_argument("--interval", type=float, default=1.0, help="min_domain_interval, ≥ 1")
    parser.add_argument("--concurrency", type=int, default=8, help="max_concurrency")
    args = parser.parse_args()
    settings = FetchSettings(min_domain_interval=args.interval, max_concurrency=args.concurrency)
    per_site = math.ceil(args.pages / args.sites)
    with serve_lab(corpus(max(args.pages, args.sites) * 3), sites=args.sites) as lab:
        urls = []
        for i in range(args.pages):
            site = i % args.sites
            pages = lab.site_pages[site]
            urls.append(pages[(i // args.sites) % len(pages)].url)
        wall, size = asyncio.run(fetch_all(urls, settings))
    bound = (per_site - 1) * args.interval
    rows = [
        ("pages (N)", f"{args.pages}"),
        ("sites (M)", f"{args.sites}"),
        ("interval", f"{args.interval:.2f} s"),
        ("max_concurrency", f"{args.concurrency}"),
        ("bytes fetched", f"{size}"),
        ("wall time", f"{wall:.2f} s"),
        ("bound (ceil(N/M)-1)*interval", f"{bound:.2f} s"),
        ("bound incl. robots.txt", f"{per_site * args.interval:.2f} s"),
        ("wall - bound incl. robots", f"{wall - per_site * args.interval:.2f} s"),
    ]
    for label, value in rows:
        print(f"{label:<30}{value}")


if __name__ == "__main__":
    main()
