"""Provider keys: explicit > key store (keys.json, mode 0600) > config reference > environment.

The key store is the only file assay writes a secret to. Config may refer to a secret
(``$env:NAME``, ``$file:PATH``) but never hold one; ``known_secret_values`` lets the
writers of run files scrub any key that slipped into a message.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from pathlib import Path

from assay.errors import ConfigError, MissingKeyError
from assay.redact import MIN_SECRET_LENGTH, register_secrets
from assay.store.atomic import atomic_write_text
from assay.user_input import CONFIG_FILE_LIMIT, SECRET_FILE_LIMIT, read_user_text

KEYS_FILE = "keys.json"


class KeyStore:
    """Reads and writes ``$ASSAY_HOME/keys.json`` and resolves keys in the documented order."""

    def __init__(self, home: Path, references: Mapping[str, str] | None = None) -> None:
        self.path = home / KEYS_FILE
        self.references = dict(references or {})

    def _stored(self) -> dict[str, str]:
        if not self.path.exists():
            return {}
        text = read_user_text(
            self.path, limit=CONFIG_FILE_LIMIT, label=str(self.path), error=ConfigError
        )
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise ConfigError(f"{self.path}: not valid JSON: {exc}") from None
        if not isinstance(data, dict) or not all(isinstance(v, str) for v in data.values()):
            raise ConfigError(f"{self.path}: expected an object of names to strings")
        return data

    def names(self) -> list[str]:
        return sorted(self._stored())

    def save(self, name: str, value: str) -> None:
        if not name or not value:
            raise ConfigError("a key needs a name and a non-empty value")
        stored = self._stored()
        stored[name] = value
        register_secrets([value])
        self._write(stored)

    def remove(self, name: str) -> bool:
        stored = self._stored()
        if stored.pop(name, None) is None:
            return False
        self._write(stored)
        return True

    def _write(self, stored: dict[str, str]) -> None:
        text = json.dumps(stored, indent=2) + "\n"
        atomic_write_text(self.path, text, mode=0o600, secret=True)

    def get(self, variable: str, explicit: str | None = None) -> str | None:
        """The key named ``variable`` (e.g. BRAVE_API_KEY), or None when it is set nowhere.

        A key found is registered for redaction, so no file or message can show it.
        """
        value = self._find(variable, explicit)
        if value:
            register_secrets([value])
        return value

    def _find(self, variable: str, explicit: str | None) -> str | None:
        if explicit:
            return explicit
        stored = self._stored().get(variable)
        if stored:
            return stored
        reference = self.references.get(variable)
        if reference:
            return _resolve_reference(variable, reference)
        return os.environ.get(variable) or None

    def source_of(self, variable: str) -> str | None:
        """Where ``variable`` is found, in the lookup order (``keys.json``, the config's
        reference, the environment), or None when it is set nowhere. Never the value."""
        if self._stored().get(variable):
            return KEYS_FILE
        reference = self.references.get(variable)
        if reference:
            try:
                _resolve_reference(variable, reference)
            except ConfigError:
                return None
            return f"config ({reference})"
        return "environment" if os.environ.get(variable) else None

    def require(self, variable: str, purpose: str = "", explicit: str | None = None) -> str:
        value = self.get(variable, explicit)
        if value is None:
            raise MissingKeyError(variable, purpose)
        return value

    def known_secret_values(self) -> set[str]:
        """Every secret value reachable from here, for scrubbing text before it is written."""
        values = set(self._stored().values())
        for variable, reference in self.references.items():
            try:
                values.add(_resolve_reference(variable, reference))
            except ConfigError:
                continue
        values.update(environment_secret_values())
        found = {v for v in values if len(v) >= MIN_SECRET_LENGTH}
        register_secrets(found)
        return found


class BroughtKey(KeyStore):
    """The one key a request to a server brought for its own model endpoint.

    Every lookup answers this key and nothing else: the server's key store, its config
    references and its environment are never read, so a model built with it cannot carry
    the server's credentials anywhere.
    """

    def __init__(self, value: str) -> None:
        super().__init__(Path(os.devnull))
        self._value = value
        register_secrets([value])

    def _stored(self) -> dict[str, str]:
        return {}

    def _find(self, variable: str, explicit: str | None) -> str | None:
        return self._value

    def known_secret_values(self) -> set[str]:
        return {self._value} if len(self._value) >= MIN_SECRET_LENGTH else set()


def environment_secret_values() -> set[str]:
    """The values of the environment variables named like keys (``*_API_KEY``, ``*_TOKEN``…)."""
    return {v for k, v in os.environ.items() if _looks_like_key_variable(k) and v}


def register_every_known_secret() -> None:
    """Register every secret reachable from the environment and the default home's
    configuration and key store, before printing text that was never meant to be shown
    (a traceback). The environment's go first: the configuration may be what failed."""
    from assay.config import load_settings  # pydantic-settings: only on this rare path

    register_secrets(environment_secret_values())
    try:
        settings = load_settings()
        KeyStore(settings.home, settings.keys).known_secret_values()
    except ConfigError:  # a config or key store that cannot be read holds nothing to mask
        pass


def _looks_like_key_variable(name: str) -> bool:
    upper = name.upper()
    return upper.endswith(("_API_KEY", "_KEY", "_TOKEN", "_SECRET")) or upper.startswith(
        "ASSAY_KEY"
    )


def _resolve_reference(name: str, reference: str) -> str:
    if reference.startswith("$env:"):
        variable = reference.removeprefix("$env:")
        value = os.environ.get(variable)
        if not value:
            raise MissingKeyError(variable, name)
        return value
    path = Path(reference.removeprefix("$file:")).expanduser()
    label = f"keys.{name}: cannot read {path}"
    return read_user_text(path, limit=SECRET_FILE_LIMIT, label=label, error=ConfigError).strip()
