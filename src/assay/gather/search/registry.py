"""Choosing a search provider by name.

Providers are plugins: ``build_search_provider`` loads the factory registered under the
name in the ``assay.search`` entry-point group and calls it with the settings, the shared
HTTP client and the key store. Built-ins register through pyproject.toml like any
third-party package would.
"""

from __future__ import annotations

from typing import TYPE_CHECKING
from urllib.parse import urlsplit

import httpx2

from assay.errors import ConfigError
from assay.gather.fetch.guard import Resolver, guarded_client
from assay.gather.search.base import SearchProvider, SearchProviderFactory
from assay.plugins import SEARCH_GROUP, plugin_names, registered

if TYPE_CHECKING:
    from assay.config import Settings
    from assay.keys import KeyStore


def build_search_provider(
    settings: Settings,
    *,
    http: httpx2.AsyncClient,
    keys: KeyStore,
    name: str | None = None,
) -> SearchProvider:
    """The provider named ``name`` (default: ``settings.search``), built from the settings."""
    chosen = known_search_provider(name or settings.search)
    factory: SearchProviderFactory = registered(SEARCH_GROUP, chosen).load()
    if not callable(factory):
        raise ConfigError(f"search plugin {chosen!r} does not load a factory")
    provider = factory(settings, http=http, keys=keys)
    if not isinstance(provider, SearchProvider):
        raise ConfigError(f"search plugin {chosen!r} did not build a search provider")
    return provider


def search_client(
    settings: Settings,
    *,
    transport: httpx2.AsyncBaseTransport | None = None,
    resolver: Resolver | None = None,
    timeout: float = 30.0,
) -> httpx2.AsyncClient:
    """The HTTP client search providers share: every connection goes through the address
    guard, under the run's ``allow_hosts`` plus the hosts of the search endpoints the
    settings name (the SearXNG instance, the MCP server, a scholarly API's endpoint moved
    from its public default), which whoever configured them chose. A ``transport``
    (tests) replaces the guarded one."""
    if transport is not None:
        return httpx2.AsyncClient(transport=transport, timeout=timeout, trust_env=False)
    endpoints = (settings.searxng_url, settings.mcp_url, *_moved_scholarly(settings))
    named = [host for url in endpoints if url and (host := urlsplit(url.strip()).hostname)]
    return guarded_client([*settings.allow_hosts, *named], resolver=resolver, timeout=timeout)


def _moved_scholarly(settings: Settings) -> list[str]:
    """The scholarly endpoints the settings moved from their public defaults."""
    from assay.config import ScholarlySettings

    own = settings.scholarly.model_dump()
    default = ScholarlySettings.model_validate({}).model_dump()
    return [v for k, v in own.items() if k.endswith(("_url", "_pages")) and v != default[k]]


def known_search_provider(name: str) -> str:
    """``name`` as providers are named (trimmed, lower case), once one is registered under
    it; else the one-line ConfigError naming the registered ones. Front ends call it before
    a run exists, so a typo is refused (a 400, exit 2), never a run that fails."""
    chosen = name.strip().lower()
    registered(SEARCH_GROUP, chosen)
    return chosen


def search_provider_names() -> list[str]:
    """Every registered provider name, sorted."""
    return plugin_names(SEARCH_GROUP)
