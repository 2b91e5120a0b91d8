"""Entry-point registries: search providers, models and protocols are plugins.

Built-ins register through the same entry points as third-party packages (see
pyproject.toml), so there is one way in. A group maps a name to an object whose contract
``assay`` exports: a ``SearchProviderFactory``, a ``ModelFactory``, a ``ProtocolSpec``
(``protocols.registry`` reads that group; each protocol's request model says what its
runs take, so every interface can start one by name).
"""

from __future__ import annotations

from collections.abc import Iterable
from difflib import get_close_matches
from importlib.metadata import EntryPoint, entry_points
from typing import Any

from assay.errors import ConfigError

SEARCH_GROUP = "assay.search"
MODELS_GROUP = "assay.models"
PROTOCOLS_GROUP = "assay.protocols"


def plugin_entry_points(group: str) -> dict[str, EntryPoint]:
    """The entry points installed in ``group``, by name."""
    return {ep.name: ep for ep in entry_points(group=group)}


def plugin_names(group: str) -> list[str]:
    """The names registered in ``group``, sorted."""
    return sorted(plugin_entry_points(group))


def unknown_name(what: str, name: str, known: Iterable[str]) -> ConfigError:
    """The one-line error for a misspelled name: the closest known one, then all of them."""
    names = sorted(known)
    close = get_close_matches(name, names, n=1, cutoff=0.7)
    hint = f"; did you mean {close[0]!r}?" if close else ""
    return ConfigError(f"unknown {what} {name!r}{hint} (known: {', '.join(names) or 'none'})")


def registered(group: str, name: str) -> EntryPoint:
    """The entry point of ``name`` in ``group``; a name nothing registered is the one-line
    ConfigError naming the registered ones (so a front end can refuse it before a run)."""
    found = plugin_entry_points(group)
    if name not in found:
        raise unknown_name(f"{group.removeprefix('assay.')} plugin", name, found)
    return found[name]


def load_plugin(group: str, name: str) -> Any:
    """Load the object registered as ``name`` in ``group``; unknown names are user errors."""
    return registered(group, name).load()
