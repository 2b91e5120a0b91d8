"""The probe that tells a working search tool from a broken one.

A tool is probed with a neutral query that any working engine answers (a common word, not
the run's topic): a provider that answers it — even with no result for an unusual topic —
works, and "no results for the topic" is a research outcome (gaps, insufficient data),
never "no search method". Only a tool that fails (an error, no answer in time) is broken.
"""

from __future__ import annotations

from assay.config import Settings
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


def configured_providers(settings: Settings, keys: KeyStore) -> list[str]:
    """The configured search provider first, then every other one that is set up (a key,
    a URL or a local index); MCP only as the configured provider."""
    first = settings.search.strip().lower()
    names = [first]
    for name in search_provider_names():
        if name in (first, "mcp"):
            continue
        configured = {
            "searxng": bool(settings.searxng_url),
            "local": (settings.home / "index.sqlite").is_file(),
        }.get(name, name in KEYED and bool(keys.get(KEYED[name])))
        if configured:
            names.append(name)
    return names
