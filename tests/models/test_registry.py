"""Model names, provider plugins, keys and profiles (no request is sent here)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

import assay.models
from assay.config import Settings
from assay.errors import ConfigError, MissingKeyError
from assay.keys import KeyStore
from assay.models import (
    ModelOptions,
    ModelProfile,
    ProfileOverrides,
    model_from_settings,
    model_providers,
    registry,
    resolve_model,
)
from assay.models.profiles import is_local_url, openai_profile
from assay.models.registry import split_model_name
from assay.models.testing import ScriptedModel


@pytest.fixture(autouse=True)
def no_model_requests() -> Iterator[None]:
    with assay.models.model_requests_allowed(False):
        yield


@pytest.fixture
def keys(isolated_home: Path) -> KeyStore:
    return KeyStore(isolated_home)


@pytest.mark.parametrize(
    ("spec", "expected"),
    [
        ("openai:gpt-4o-mini", ("openai", "gpt-4o-mini")),
        ("OpenAI:qwen2.5:1.5b", ("openai", "qwen2.5:1.5b")),
        (" anthropic:claude-sonnet-5 ", ("anthropic", "claude-sonnet-5")),
    ],
)
def test_split_model_name(spec: str, expected: tuple[str, str]) -> None:
    assert split_model_name(spec) == expected


@pytest.mark.parametrize("spec", ["gpt-4o", "openai:", ":gpt-4o", ""])
def test_model_names_need_a_provider(spec: str) -> None:
    with pytest.raises(ConfigError, match="provider:model"):
        split_model_name(spec)


def test_builtin_providers_are_known() -> None:
    assert {"openai", "anthropic"} <= set(model_providers())


def test_unknown_provider_names_the_known_ones(keys: KeyStore) -> None:
    with pytest.raises(ConfigError, match=r"unknown model provider 'nope' \(known: .*openai"):
        resolve_model("nope:x", ModelOptions(keys=keys))


def test_a_plugin_provider_is_resolved(monkeypatch: pytest.MonkeyPatch) -> None:
    built: list[tuple[str, ModelOptions]] = []

    def factory(name: str, options: ModelOptions) -> ScriptedModel:
        built.append((name, options))
        return ScriptedModel([], name=f"echo:{name}")

    monkeypatch.setattr(registry, "plugin_names", lambda group: ["echo"])
    monkeypatch.setattr(registry, "load_plugin", lambda group, name: factory)
    options = ModelOptions(base_url="http://127.0.0.1:1")
    model = resolve_model("echo:tiny:v2", options)
    assert model.name == "echo:tiny:v2"
    assert built == [("tiny:v2", options)]
    assert "echo" in model_providers()


def test_openai_service_requires_its_key(keys: KeyStore) -> None:
    with pytest.raises(MissingKeyError) as caught:
        resolve_model("openai:gpt-4o-mini", ModelOptions(keys=keys))
    assert caught.value.variable == "OPENAI_API_KEY"
    assert "OPENAI_API_KEY" in str(caught.value)


def test_openai_key_from_the_key_store(keys: KeyStore) -> None:
    keys.save("OPENAI_API_KEY", "sk-test-123456")
    model = resolve_model("openai:gpt-4o-mini", ModelOptions(keys=keys))
    assert model.name == "openai:gpt-4o-mini"
    assert model.profile.output_mode == "json_schema"
    assert model.profile.native_tools is True
    assert model.profile.schema_in_prompt is False


def test_local_endpoint_needs_no_key(keys: KeyStore) -> None:
    model = resolve_model(
        "openai:qwen2.5-coder-1.5b-instruct",
        ModelOptions(base_url="http://127.0.0.1:8765/v1", keys=keys),
    )
    assert model.profile.output_mode == "json_schema"
    assert model.profile.native_tools is False
    assert model.profile.context_window == 8_192


def test_unknown_remote_endpoint_gets_prompted_json(keys: KeyStore) -> None:
    model = resolve_model(
        "openai:some/model", ModelOptions(base_url="https://llm.example.test/v1", keys=keys)
    )
    assert model.profile.output_mode == "prompted_json"


def test_profile_overrides_from_config(keys: KeyStore) -> None:
    overrides = ProfileOverrides(
        output_mode="prompted_json", price_input=0.5, price_output=1.5, max_tokens=256
    )
    model = resolve_model(
        "openai:llama3",
        ModelOptions(base_url="http://localhost:11434/v1", keys=keys, profile=overrides),
    )
    assert model.profile.output_mode == "prompted_json"
    assert model.profile.max_tokens == 256
    assert model.profile.cost(1_000_000, 1_000_000) == pytest.approx(2.0)


def test_anthropic_requires_its_key(keys: KeyStore) -> None:
    with pytest.raises(MissingKeyError) as caught:
        resolve_model("anthropic:claude-sonnet-5", ModelOptions(keys=keys))
    assert caught.value.variable == "ANTHROPIC_API_KEY"


def test_anthropic_modes(keys: KeyStore, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test-123")
    new = resolve_model("anthropic:claude-sonnet-5", ModelOptions(keys=keys))
    old = resolve_model("anthropic:claude-3-haiku-20240307", ModelOptions(keys=keys))
    assert new.profile.output_mode == "json_schema"
    assert old.profile.output_mode == "tool"
    assert new.profile.native_tools and old.profile.native_tools


def test_model_from_settings(isolated_home: Path) -> None:
    assert model_from_settings(Settings()) is None  # the extractive engine
    settings = Settings(model="openai:qwen", base_url="http://127.0.0.1:8765/v1")
    model = model_from_settings(settings)
    assert model is not None
    assert model.name == "openai:qwen"
    assert model.profile.output_mode == "json_schema"
    with pytest.raises(MissingKeyError):
        model_from_settings(Settings(model="anthropic:claude-sonnet-5"))


@pytest.mark.parametrize(
    ("url", "local"),
    [
        ("http://127.0.0.1:8765/v1", True),
        ("http://localhost:11434/v1", True),
        ("http://[::1]:8080/v1", True),
        ("http://192.168.1.20:8000/v1", True),
        ("http://gpu-box.local:1234/v1", True),
        ("http://ollama:11434/v1", True),
        ("https://api.openai.com/v1", False),
        ("https://openrouter.ai/api/v1", False),
        ("https://llm.example.test:8080/v1", False),
    ],
)
def test_is_local_url(url: str, local: bool) -> None:
    assert is_local_url(url) is local


def test_profile_validation() -> None:
    with pytest.raises(ValueError):
        ModelProfile(output_mode="yaml")  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        ModelProfile(max_tokens=0)
    assert ModelProfile().cost(10, 10) is None
    assert openai_profile("x", None).output_mode == "json_schema"


def test_a_missing_sdk_is_a_one_line_config_error(
    keys: KeyStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    import sys

    monkeypatch.setitem(sys.modules, "openai", None)  # makes `import openai` fail
    with pytest.raises(ConfigError, match="needs the package openai: pip install"):
        resolve_model("openai:qwen", ModelOptions(base_url="http://127.0.0.1:1/v1", keys=keys))
