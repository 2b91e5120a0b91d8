"""The ``anthropic`` provider: Claude through the Messages API (key ``ANTHROPIC_API_KEY``).

Models with structured output get the JSON schema as their output format; the others give
their output as a forced call of one output tool. The SDK and pydantic-ai are imported
when a model is built, after the key check.
"""

from __future__ import annotations

from assay.models.base import Model
from assay.models.profiles import ModelProfile, anthropic_profile
from assay.models.registry import ModelOptions, missing_dependency

KEY_VARIABLE = "ANTHROPIC_API_KEY"


def create(model_name: str, options: ModelOptions) -> Model:
    key = options.key_store().require(KEY_VARIABLE, "the anthropic model provider")
    try:
        from pydantic_ai.profiles.anthropic import anthropic_model_profile
    except ImportError as exc:
        raise missing_dependency("anthropic", exc) from None

    known = anthropic_model_profile(model_name) or {}
    profile = anthropic_profile(
        model_name, supports_json_schema=bool(known.get("supports_json_schema_output"))
    ).with_overrides(options.profile)
    return _build(model_name, profile, key, options)


def _build(model_name: str, profile: ModelProfile, key: str, options: ModelOptions) -> Model:
    try:
        from anthropic import AsyncAnthropic
        from pydantic_ai.models.anthropic import AnthropicModel
        from pydantic_ai.profiles.anthropic import AnthropicModelProfile
        from pydantic_ai.providers.anthropic import AnthropicProvider

        from assay.models.adapter import PydanticAIModel
    except ImportError as exc:
        raise missing_dependency("anthropic", exc) from None

    client = AsyncAnthropic(
        api_key=key,
        base_url=options.base_url,
        http_client=options.http_client,
        max_retries=options.sdk_retries,
    )
    wire_profile = AnthropicModelProfile(
        supports_json_schema_output=profile.output_mode == "json_schema"
    )
    inner = AnthropicModel(
        model_name, provider=AnthropicProvider(anthropic_client=client), profile=wire_profile
    )
    return PydanticAIModel(
        f"anthropic:{model_name}",
        profile,
        inner,
        sdk_retries=options.sdk_retries,
        close=client.close if options.http_client is None else None,
    )
