"""Models are named ``provider:model`` and built by provider plugins.

A provider plugin is a factory ``(model_name, ModelOptions) -> Model`` registered in the
entry-point group ``assay.models`` (``plugins.MODELS_GROUP``); the built-ins, ``openai``,
``anthropic`` and the local servers ``ollama``, ``lmstudio`` and ``llamacpp``
(``models/local.py``), register the same way in pyproject.toml. They are also known here by
their import path, so a source tree that was not reinstalled still finds them.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from assay.config import Settings, default_home
from assay.errors import ConfigError
from assay.keys import KeyStore
from assay.models.base import Model
from assay.models.profiles import OUTPUT_MODES, ProfileOverrides
from assay.plugins import MODELS_GROUP, load_plugin, plugin_names, unknown_name

if TYPE_CHECKING:
    import httpx2

BUILTIN_PROVIDERS: dict[str, str] = {
    "openai": "assay.models.openai:create",
    "anthropic": "assay.models.anthropic:create",
    "ollama": "assay.models.local:ollama",
    "lmstudio": "assay.models.local:lmstudio",
    "llamacpp": "assay.models.local:llamacpp",
}


@dataclass(frozen=True)
class ModelOptions:
    """What a provider factory may use besides the model's name."""

    base_url: str | None = None
    keys: KeyStore | None = None
    """Where keys come from; None means the default home's key store, then the environment."""
    http_client: httpx2.AsyncClient | None = None
    """One injectable client (tests pass one over ``httpx2.MockTransport``)."""
    profile: ProfileOverrides | None = None
    sdk_retries: int = 2
    """Retries of the vendor SDK on 429/5xx/connection errors, inside the call's timeout."""

    def key_store(self) -> KeyStore:
        return self.keys if self.keys is not None else KeyStore(default_home())


ModelFactory = Callable[[str, ModelOptions], Model]


def missing_dependency(provider: str, exc: ImportError) -> ConfigError:
    """The one-line error for a provider whose packages are not installed."""
    return ConfigError(
        f"the {provider} model provider needs the package {exc.name or '?'}: "
        "pip install 'pydantic-ai-slim[openai,anthropic]'"
    )


def split_model_name(spec: str) -> tuple[str, str]:
    """``"openai:qwen2.5:1.5b"`` → ``("openai", "qwen2.5:1.5b")``: the model may hold colons."""
    provider, sep, model = spec.strip().partition(":")
    if not sep or not provider or not model:
        raise ConfigError(
            f"model {spec!r} must be named provider:model, for example openai:gpt-4o-mini "
            "or anthropic:claude-sonnet-4-5"
        )
    return provider.lower(), model


def model_providers() -> list[str]:
    """Every provider name that resolves: the plugins plus the built-ins."""
    return sorted(set(plugin_names(MODELS_GROUP)) | set(BUILTIN_PROVIDERS))


def provider_factory(provider: str) -> ModelFactory:
    if provider in plugin_names(MODELS_GROUP):
        factory: Any = load_plugin(MODELS_GROUP, provider)
    elif provider in BUILTIN_PROVIDERS:
        module, _, attribute = BUILTIN_PROVIDERS[provider].partition(":")
        factory = getattr(importlib.import_module(module), attribute)
    else:
        raise unknown_name("model provider", provider, model_providers())
    if not callable(factory):
        raise ConfigError(f"model provider {provider!r} is not a factory")
    return factory  # type: ignore[no-any-return]


def resolve_model(spec: str, options: ModelOptions | None = None) -> Model:
    """The model named ``spec`` (``provider:model``), built by its provider plugin."""
    provider, model_name = split_model_name(spec)
    return provider_factory(provider)(model_name, options or ModelOptions())


def model_from_settings(
    settings: Settings,
    keys: KeyStore | None = None,
    *,
    http_client: httpx2.AsyncClient | None = None,
) -> Model | None:
    """The configured model, or None when none is (the extractive engine then runs).

    Reads ``model`` and ``base_url``; the profile overrides ``model_output_mode``,
    ``context_tokens``, ``model_max_tokens``, ``model_price_input`` and
    ``model_price_output`` are read when the settings have them.
    """
    if not settings.model:
        return None
    mode = getattr(settings, "model_output_mode", None)
    if mode is not None and mode not in OUTPUT_MODES:
        raise ConfigError(f"model_output_mode must be one of {', '.join(OUTPUT_MODES)}")
    overrides = ProfileOverrides(
        output_mode=mode,
        context_window=getattr(settings, "context_tokens", None),
        max_tokens=getattr(settings, "model_max_tokens", None),
        price_input=getattr(settings, "model_price_input", None),
        price_output=getattr(settings, "model_price_output", None),
    )
    options = ModelOptions(
        base_url=settings.base_url,
        keys=keys or KeyStore(settings.home, settings.keys),
        http_client=http_client,
        profile=overrides,
    )
    return resolve_model(settings.model, options)
