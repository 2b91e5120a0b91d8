"""The effective configuration as a person may see it: ``assay config show`` and the web
app's settings page. References and where each key is found, never a secret value."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from assay.config import Settings
from assay.errors import AssayError
from assay.keys import KeyStore
from assay.redact import mask


@dataclass(frozen=True)
class KeyState:
    """One provider key: what it is for and where it is found (None: missing)."""

    name: str
    purpose: str
    source: str | None


def known_keys() -> dict[str, str]:
    """The key variables assay's built-in providers read, with what each is for."""
    from assay.gather.search.probe import KEYED
    from assay.models import anthropic, openai

    known = {variable: f"{name} search" for name, variable in KEYED.items()}
    known[openai.KEY_VARIABLE] = "openai models (api.openai.com)"
    known[anthropic.KEY_VARIABLE] = "anthropic models"
    return dict(sorted(known.items()))


def key_states(settings: Settings) -> list[KeyState]:
    """Every known key and every key the config or the key store names."""
    store = KeyStore(settings.home, settings.keys)
    purposes = known_keys()
    for name in [*settings.keys, *store.names()]:
        purposes.setdefault(name, "named in your configuration")
    return [KeyState(name, purpose, _source(store, name)) for name, purpose in purposes.items()]


def _source(store: KeyStore, name: str) -> str | None:
    try:
        return store.source_of(name)
    except AssayError:  # a key store that cannot be read holds no key we can use
        return None


def effective_config(settings: Settings) -> dict[str, Any]:
    """What a run would use: defaults < config.toml < ASSAY_* < flags, with each config key
    reference's state, the key store's names and the registered plugins."""
    from assay.plugins import MODELS_GROUP, SEARCH_GROUP, plugin_names
    from assay.protocols.registry import protocol_names

    store = KeyStore(settings.home, settings.keys)
    shown: dict[str, Any] = settings.snapshot()
    shown["keys"] = {name: _key_state(store, name, ref) for name, ref in settings.keys.items()}
    shown["key_store"] = {name: "set (masked)" for name in store.names()}
    shown["plugins"] = {
        group.removeprefix("assay."): plugin_names(group) for group in (SEARCH_GROUP, MODELS_GROUP)
    }
    shown["plugins"]["protocols"] = protocol_names()
    # Belt and braces: no resolved secret value may appear anywhere in what is shown.
    text = mask(json.dumps(shown), store.known_secret_values())
    result: dict[str, Any] = json.loads(text)
    return result


def _key_state(store: KeyStore, name: str, reference: str) -> str:
    try:
        found = store.get(name)
    except AssayError:
        found = None
    return f"{reference} ({'set' if found else 'not set'})"
