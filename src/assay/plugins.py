"""Entry-point registries: search providers, models and protocols are all plugins.

Built-ins register through the same entry points as third-party packages (see
pyproject.toml), so there is one way in. A group maps a name to a factory object.
"""

from __future__ import annotations

from importlib.metadata import EntryPoint, entry_points
from typing import Any

from assay.errors import ConfigError

SEARCH_GROUP = "assay.search"
MODELS_GROUP = "assay.models"
PROTOCOLS_GROUP = "assay.protocols"


def _entry_points(group: str) -> dict[str, EntryPoint]:
    return {ep.name: ep for ep in entry_points(group=group)}


def plugin_names(group: str) -> list[str]:
    """The names registered in ``group``, sorted."""
    return sorted(_entry_points(group))


def load_plugin(group: str, name: str) -> Any:
    """Load the object registered as ``name`` in ``group``; unknown names are user errors."""
    found = _entry_points(group)
    if name not in found:
        known = ", ".join(sorted(found)) or "none"
        kind = group.removeprefix("assay.")
        raise ConfigError(f"unknown {kind} plugin {name!r} (known: {known})")
    return found[name].load()
