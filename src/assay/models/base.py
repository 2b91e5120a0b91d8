"""The one interface every model implements: a request in, a text reply out.

A ``Model`` knows its wire format (``models/openai.py``, ``models/anthropic.py``) or its
script (``models/testing.py``); what a reply means is decided by the typed call
(``models/call.py``), which is the only caller.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import Any, Literal

from assay.errors import ProviderError
from assay.models.profiles import ModelProfile, OutputMode
from assay.models.tokens import TokenCounter

Role = Literal["user", "assistant"]


class ModelTimeout(ProviderError):
    """The model did not answer within the call's timeout (or the run's remaining time)."""


@dataclass(frozen=True)
class Message:
    """One turn of a conversation; the system prompt travels separately."""

    role: Role
    content: str


@dataclass(frozen=True)
class OutputSchema:
    """The JSON schema a reply must match, as it goes on the wire."""

    name: str
    json_schema: dict[str, Any]
    description: str | None = None
    enveloped: bool = False
    """True when the output is not an object and travels as ``{"result": ...}``."""


@dataclass(frozen=True)
class Request:
    """What a typed call asks of a model for one attempt."""

    system: str
    messages: tuple[Message, ...]
    output: OutputSchema | None
    mode: OutputMode
    max_tokens: int
    timeout: float
    temperature: float | None = None
    metadata: dict[str, Any] = field(default_factory=dict)

    @property
    def prompt(self) -> str:
        """The last user message (convenient in scripted replies)."""
        for message in reversed(self.messages):
            if message.role == "user":
                return message.content
        return ""


@dataclass(frozen=True)
class Reply:
    """A model's answer to one request, with the token counts the endpoint reported."""

    text: str
    input_tokens: int | None = None
    output_tokens: int | None = None
    finish_reason: str | None = None
    """``stop``, ``length`` (cut at max_tokens), ``tool_call``... as the adapter maps it."""
    model_name: str | None = None


class Model(ABC):
    """A named model (``provider:model``) with its profile and its token counter."""

    def __init__(
        self, name: str, profile: ModelProfile, *, tokens: TokenCounter | None = None
    ) -> None:
        self.name = name
        self.profile = profile
        self.tokens = tokens or TokenCounter()
        """How prompts are measured against ``profile.context_window`` (``models/window.py``)."""
        self.window_from_server = False
        """Whether the context window is the server's own (``tokens.server_window``) where it
        says one, because no configuration set it."""

    @property
    def provider(self) -> str:
        return self.name.partition(":")[0]

    @abstractmethod
    async def request(self, request: Request) -> Reply:
        """Send one request; raise ``ProviderError`` when the endpoint fails."""

    async def aclose(self) -> None:  # noqa: B027 - optional hook
        """Release connections; the default holds none."""

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name} mode={self.profile.output_mode}>"
