"""The probe that tells a working search tool from a broken one.

A tool is probed with a neutral query that any working engine answers (a common word, not
the run's topic): a provider that answers it — even with no result for an unusual topic —
works, and "no results for the topic" is a research outcome (gaps, insufficient data),
never "no search method". Only a tool that fails (an error, no answer in time) is broken.
"""

from __future__ import annotations

from assay.config import Settings
from assay.errors import ConfigError
from assay.gather.search.registry import search_provider_names
from assay.keys import KeyStore

KEYED = {
    "brave": "BRAVE_API_KEY",
    "tavily": "TAVILY_API_KEY",
    "exa": "EXA_API_KEY",
    "serper": "SERPER_API_KEY",
}

PROBE_QUERY = "history"
"""Neutral: a common word that every general index (the web, a lab, a local index) holds."""


SET_UP_BY = (*KEYED, "searxng", "local")
"""The providers that need setting up (a key, a URL, an index): set up, each is one of a
synth panel's default searchers."""


def missing_setup(name: str, settings: Settings, keys: KeyStore) -> str | None:
    """What provider ``name`` still needs before a run can search with it (None: nothing,
    as far as can be told without a request), in words a form can show."""
    if name in KEYED:
        try:
            found = keys.get(KEYED[name])
        except ConfigError:  # a config reference that does not resolve
            found = None
        return None if found else f"needs {KEYED[name]}"
    if name == "searxng" and not settings.searxng_url:
        return "needs a SearXNG URL (--searxng-url)"
    if name == "local" and not (settings.home / "index.sqlite").is_file():
        return "no local index yet (assay index add)"
    if name == "mcp" and not (settings.mcp_command or settings.mcp_url):
        return "needs an MCP server (--mcp-command or --mcp-url)"
    return None


def configured_providers(settings: Settings, keys: KeyStore) -> list[str]:
    """The configured search provider first, then every other one that is set up (a key,
    a URL or a local index); MCP only as the configured provider."""
    first = settings.search.strip().lower()
    names = [first]
    for name in search_provider_names():
        if name in SET_UP_BY and name != first and missing_setup(name, settings, keys) is None:
            names.append(name)
    return names
