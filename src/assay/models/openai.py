"""The ``openai`` provider: any OpenAI-compatible chat-completions endpoint.

OpenAI itself, and through ``base_url`` Ollama, llama.cpp's llama-server, vLLM, LM Studio
or OpenRouter (``models/local.py`` names the local servers, with their default URLs).
``OPENAI_API_KEY`` is required for api.openai.com and optional elsewhere
(a local server takes none). Only api.openai.com gets ``max_completion_tokens``; every
other endpoint gets the older ``max_tokens``, which they all accept.

The SDK and pydantic-ai are imported when a model is built, after the key check.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from assay.models.base import Model
from assay.models.profiles import OPENAI_BASE_URL, ModelProfile, openai_profile
from assay.models.registry import ModelOptions, missing_dependency
from assay.models.tokens import TokenCounter

KEY_VARIABLE = "OPENAI_API_KEY"
_NO_KEY = "not-needed"  # the SDK insists on a key; local servers ignore it


def is_openai_service(base_url: str) -> bool:
    return (urlsplit(base_url).hostname or "").lower() == "api.openai.com"


def create(model_name: str, options: ModelOptions) -> Model:
    base_url = (options.base_url or OPENAI_BASE_URL).rstrip("/")
    official = is_openai_service(base_url)
    keys = options.key_store()
    if official:
        key = keys.require(KEY_VARIABLE, "the openai model provider")
    else:
        key = keys.get(KEY_VARIABLE) or _NO_KEY
    profile = openai_profile(model_name, options.base_url).with_overrides(options.profile)
    return build(f"openai:{model_name}", profile, base_url, key, options)


def build(
    name: str,
    profile: ModelProfile,
    base_url: str,
    key: str,
    options: ModelOptions,
    *,
    tokens: TokenCounter | None = None,
) -> Model:
    """The model ``name`` (``provider:model``) behind the OpenAI-compatible ``base_url``."""
    official = is_openai_service(base_url)
    model_name = name.partition(":")[2]
    try:
        from openai import AsyncOpenAI
        from pydantic_ai.models.openai import OpenAIChatModel
        from pydantic_ai.profiles.openai import OpenAIModelProfile
        from pydantic_ai.providers.openai import OpenAIProvider

        from assay.models.adapter import PydanticAIModel
    except ImportError as exc:
        raise missing_dependency("openai", exc) from None

    client = AsyncOpenAI(
        base_url=base_url,
        api_key=key,
        http_client=options.http_client,
        max_retries=options.sdk_retries,
    )
    wire_profile = OpenAIModelProfile(
        supports_json_schema_output=profile.output_mode == "json_schema",
        supports_tools=True,
        openai_chat_supports_max_completion_tokens=official,
    )
    inner = OpenAIChatModel(
        model_name, provider=OpenAIProvider(openai_client=client), profile=wire_profile
    )
    return PydanticAIModel(
        name,
        profile,
        inner,
        sdk_retries=options.sdk_retries,
        close=client.close if options.http_client is None else None,
        tokens=tokens,
    )
