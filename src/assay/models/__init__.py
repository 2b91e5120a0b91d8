"""Language models: named ``provider:model``, called only through ``typed_call``.

    registry.py   provider plugins (entry-point group ``assay.models``) → ``Model``
    profiles.py   what a model can do: output mode, tools, context, prices
    openai.py     any OpenAI-compatible endpoint (OpenAI, Ollama, llama.cpp, vLLM...)
    local.py      ollama:, lmstudio:, llamacpp: — local servers by name, address filled in
    anthropic.py  Claude
    adapter.py    the wire formats, through pydantic-ai's model adapters
    call.py       the typed call: schema, validation, retries with feedback, budgets
    reasoning.py  <think> blocks stripped from every reply, in the typed call
    tokens.py     token counts: a server's tokenizer (llama.cpp) or a conservative estimate
    window.py     every prompt fits the context window; evidence dropped lowest-ranked first
    output.py     output types and their schemas; parse.py tolerant JSON extraction
    usage.py      tokens and cost per call and per run
    testing.py    ``ScriptedModel`` for tests

``ALLOW_MODEL_REQUESTS`` set to False makes every real model request fail (the test suite
does so); ``set_model_requests_allowed`` sets it and pydantic-ai's switch together.
pydantic-ai and the vendor SDKs are imported only when a provider builds a model (about
3 s of CPU), so code and tests that use ``ScriptedModel`` never load them.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager

from assay.models.base import (
    Message,
    Model,
    ModelTimeout,
    OutputSchema,
    Reply,
    Request,
)
from assay.models.call import CallResult, InvalidOutput, typed_call
from assay.models.guard import ModelRequestsBlocked
from assay.models.output import OutputType
from assay.models.profiles import ModelProfile, OutputMode, ProfileOverrides
from assay.models.registry import (
    ModelFactory,
    ModelOptions,
    model_from_settings,
    model_providers,
    resolve_model,
)
from assay.models.usage import CallUsage, UsageListener, UsageMeter, UsageSummary
from assay.models.window import PromptTooLarge

ALLOW_MODEL_REQUESTS = True
"""Whether real model requests may be made; the test suite sets it to False."""


def set_model_requests_allowed(allowed: bool) -> None:
    """Allow or refuse real model requests, here and in pydantic-ai."""
    global ALLOW_MODEL_REQUESTS
    ALLOW_MODEL_REQUESTS = allowed
    pai_models = sys.modules.get("pydantic_ai.models")
    if pai_models is not None:  # else the adapter mirrors the switch when it is imported
        pai_models.ALLOW_MODEL_REQUESTS = allowed  # type: ignore[attr-defined]


@contextmanager
def model_requests_allowed(allowed: bool = True) -> Iterator[None]:
    """Temporarily allow (or refuse) real model requests, e.g. for a ``localllm`` test."""
    previous = ALLOW_MODEL_REQUESTS
    set_model_requests_allowed(allowed)
    try:
        yield
    finally:
        set_model_requests_allowed(previous)


__all__ = [
    "ALLOW_MODEL_REQUESTS",
    "CallResult",
    "CallUsage",
    "InvalidOutput",
    "Message",
    "Model",
    "ModelFactory",
    "ModelOptions",
    "ModelProfile",
    "ModelRequestsBlocked",
    "ModelTimeout",
    "OutputMode",
    "OutputSchema",
    "OutputType",
    "ProfileOverrides",
    "PromptTooLarge",
    "Reply",
    "Request",
    "UsageListener",
    "UsageMeter",
    "UsageSummary",
    "model_from_settings",
    "model_providers",
    "model_requests_allowed",
    "resolve_model",
    "set_model_requests_allowed",
    "typed_call",
]
