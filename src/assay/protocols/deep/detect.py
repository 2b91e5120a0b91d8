"""Phase 0: which search method works, tried in the spec's priority order.

1. built-in      the configured search provider (``settings.search``)
2. playwright-cli  a headless browser on PATH (``playwright-cli --version``)
3. MCP tools     an MCP search server (``settings.mcp_command`` / ``mcp_url``)
4. other         the other providers that are configured (a key or URL is set)

A method counts when it answers the neutral probe query (``PROBE_QUERY``, recorded in the
evidence) without failing: the probe tests the tool, not the topic, so a working provider
with no hits for an unusual topic is still the search method (no results is a research
outcome). The first method that works is the run's ``search_method``;
``search_instructions`` tell each worker how to use it. No method → ``NoSearchMethod``:
the run stops, it never proceeds without search.
"""

from __future__ import annotations

import asyncio
import contextlib
import shutil
import subprocess
from dataclasses import dataclass, field

import httpx2

from assay.config import Settings
from assay.errors import AssayError, RunError
from assay.gather.search.probe import PROBE_QUERY, configured_providers
from assay.gather.search.registry import build_search_provider, search_client
from assay.keys import KeyStore

_PROBE_TIMEOUT = 20.0

BUILT_IN = """Use assay's webSearch tool (the {provider} search provider) to run the queries
and get result URLs: all of a worker's queries go in one call and run concurrently. Then
use readUrl (the fetcher: robots.txt, pacing and size limits) to retrieve the full content
of each accepted URL; each page is saved as a snapshot."""
PLAYWRIGHT = """Use shell to navigate and extract content:
  playwright-cli open
  playwright-cli goto "https://www.google.com/search?q=<encoded_query>"
  playwright-cli snapshot
Read the snapshot text to extract result URLs, then for each URL goto and snapshot.
Run queries sequentially (one browser session, sequential navigation)."""
MCP = """Use the MCP tool {tool}(query) through assay's mcp search provider to search, and
readUrl to fetch each accepted URL. All of a worker's queries go in one call."""


class NoSearchMethod(RunError):
    """No search method returned result URLs for the probe query."""


@dataclass(frozen=True)
class SearchMethod:
    name: str
    evidence: str
    instructions: str
    provider: str  # the assay search provider the workers use
    tried: list[str] = field(default_factory=list)

    def line(self) -> str:
        return f"Search method: {self.name} — {self.evidence}"


async def probe(settings: Settings, keys: KeyStore, provider_name: str, query: str) -> int:
    """How many result URLs ``provider_name`` returns for ``query``."""
    async with search_client(settings, timeout=_PROBE_TIMEOUT) as http:
        provider = build_search_provider(settings, http=http, keys=keys, name=provider_name)
        async with contextlib.AsyncExitStack() as stack:
            if isinstance(provider, contextlib.AbstractAsyncContextManager):
                await stack.enter_async_context(provider)
            results = await asyncio.wait_for(
                provider.search([query], max_results=settings.max_results), _PROBE_TIMEOUT
            )
    return sum(1 for r in results if r.url)


async def _try(
    settings: Settings, keys: KeyStore, name: str, query: str, tried: list[str]
) -> int | None:
    """Result URLs for the neutral probe query, or None when the tool failed."""
    try:
        count = await probe(settings, keys, name, query)
    except (AssayError, httpx2.HTTPError, OSError, TimeoutError) as exc:
        tried.append(f"{name}: {type(exc).__name__}: {str(exc).splitlines()[0][:160]}")
        return None
    tried.append(f"{name}: answered the probe query {query!r} with {count} result URLs")
    return count


def _evidence(what: str, count: int, query: str) -> str:
    return f"{what} answered the probe query {query!r} with {count} result URLs"


def playwright_version() -> str | None:
    """``playwright-cli --version`` output, or None when it is absent or fails."""
    path = shutil.which("playwright-cli")
    if path is None:
        return None
    try:
        done = subprocess.run(
            [path, "--version"], capture_output=True, text=True, timeout=10, check=False
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout.strip() or None if done.returncode == 0 else None


async def detect_search_method(
    settings: Settings, keys: KeyStore, query: str = PROBE_QUERY
) -> SearchMethod:
    tried: list[str] = []
    configured = settings.search.strip().lower()
    count = await _try(settings, keys, configured, query, tried)
    if count is not None:
        evidence = _evidence(f"the {configured} search provider", count, query)
        return SearchMethod(
            "built-in", evidence, BUILT_IN.format(provider=configured), configured, tried
        )
    version = playwright_version()
    if version is None:
        tried.append("playwright-cli: not found on PATH (or --version failed)")
    else:
        tried.append(
            f"playwright-cli: --version → {version}, but assay's workers cannot search "
            "through a browser session, so it returns no result URLs here"
        )
    tried.append("playwright-mcp: assay's MCP client calls search tools, not browser tools")
    if configured != "mcp" and (settings.mcp_command or settings.mcp_url):
        count = await _try(settings, keys, "mcp", query, tried)
        if count is not None:
            tool = settings.mcp_tool or "search"
            evidence = _evidence(f"MCP search tool {tool}", count, query)
            return SearchMethod(f"mcp_{tool}", evidence, MCP.format(tool=tool), "mcp", tried)
    else:
        tried.append("mcp: no MCP server configured (mcp_command / mcp_url)")
    for name in configured_providers(settings, keys)[1:]:
        count = await _try(settings, keys, name, query, tried)
        if count is not None:
            evidence = _evidence(f"the configured {name} provider", count, query)
            return SearchMethod(name, evidence, BUILT_IN.format(provider=name), name, tried)
    raise NoSearchMethod(
        "no search method works, so deep research cannot proceed: " + "; ".join(tried)
    )
