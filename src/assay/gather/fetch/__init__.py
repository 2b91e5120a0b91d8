"""The fetcher: readUrl's HTTP half, every request under one politeness and safety policy.

The public names are re-exported here; the modules behind them are::

    client.py   Fetcher: composes the rules below around one shared httpx2 client
    exchange.py one request: paced, guarded, deadline-bound, retried, read under the limits
    page.py     FetchedPage: what a successful fetch returns
    address.py  which IP addresses are not public; the allow-list
    guard.py    the SSRF guard, in the network backend: resolve once, check, dial that IP
    robots.py   robots.txt per origin, for the token ``assay``
    pacing.py   ≥ interval between requests to one host; a global concurrency cap
    limits.py   accepted media types; the byte cap, raw and decoded (bomb-safe)
    retry.py    retryable failures, backoff with jitter, Retry-After
    cache.py    the SQLite page cache with revalidation
"""

from assay.gather.fetch.address import AllowList, blocked_kind, parse_host_address
from assay.gather.fetch.client import Fetcher, default_user_agent
from assay.gather.fetch.exchange import HostNotFound
from assay.gather.fetch.guard import Resolver, system_resolver
from assay.gather.fetch.page import FetchedPage
from assay.gather.fetch.robots import ROBOTS_DISALLOWED, ROBOTS_TOKEN

__all__ = [
    "ROBOTS_DISALLOWED",
    "ROBOTS_TOKEN",
    "AllowList",
    "FetchedPage",
    "Fetcher",
    "HostNotFound",
    "Resolver",
    "blocked_kind",
    "default_user_agent",
    "parse_host_address",
    "system_resolver",
]
