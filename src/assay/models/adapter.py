"""A ``Model`` over a pydantic-ai model: pydantic-ai speaks the wire format, we keep the loop.

pydantic-ai's adapters turn our request into an OpenAI or Anthropic request (JSON-schema
``response_format``, forced output tools, provider schema quirks, usage parsing); the typed
call around them stays ours, so that budgets, timeouts, tolerant parsing and usage are the
same for every provider and for the scripted model.

Real requests are refused while ``assay.models.ALLOW_MODEL_REQUESTS`` is false (the test
suite sets it so), with ``ModelRequestsBlocked``.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import httpx2
from pydantic_ai import exceptions as pai_errors
from pydantic_ai import messages as pai
from pydantic_ai import models as pai_models
from pydantic_ai.direct import model_request
from pydantic_ai.models import Model as PaiModel
from pydantic_ai.models import ModelRequestParameters
from pydantic_ai.output import OutputObjectDefinition
from pydantic_ai.settings import ModelSettings
from pydantic_ai.tools import ToolDefinition

from assay.errors import ConfigError, ProviderError
from assay.models.base import (
    Model,
    ModelTimeout,
    Reply,
    Request,
)
from assay.models.guard import check_model_requests_allowed, model_requests_are_allowed
from assay.models.profiles import ModelProfile
from assay.models.tokens import TokenCounter

_BODY_CHARS = 300


if not model_requests_are_allowed():  # mirror a switch set before pydantic-ai was imported
    pai_models.ALLOW_MODEL_REQUESTS = False


class PydanticAIModel(Model):
    """A model whose requests go through a pydantic-ai model adapter."""

    def __init__(
        self,
        name: str,
        profile: ModelProfile,
        inner: PaiModel,
        *,
        sdk_retries: int = 2,
        close: Callable[[], Awaitable[None]] | None = None,
        tokens: TokenCounter | None = None,
    ) -> None:
        """``close`` releases what the factory opened (its SDK client's own connections);
        an ``http_client`` the caller passed in stays the caller's to close."""
        super().__init__(name, profile, tokens=tokens)
        self.inner = inner
        self.sdk_retries = sdk_retries
        self._close = close

    async def request(self, request: Request) -> Reply:
        check_model_requests_allowed(self.name)
        settings: ModelSettings = {
            "max_tokens": request.max_tokens,
            "timeout": request.timeout,
            "max_retries": self.sdk_retries,
        }
        if request.temperature is not None:
            settings["temperature"] = request.temperature
        try:
            response = await model_request(
                self.inner,
                to_pai_messages(request),
                model_settings=settings,
                model_request_parameters=request_parameters(request),
                instrument=False,
            )
        except pai_errors.UserError as exc:
            raise ConfigError(f"{self.name}: {exc}") from None
        except pai_errors.ModelTimeoutError:
            raise ModelTimeout(f"{self.name}: no reply within {request.timeout:.1f} s") from None
        except pai_errors.ModelHTTPError as exc:
            raise ProviderError(
                f"{self.name}: HTTP {exc.status_code}: {_short(exc.body) or exc.message}"
            ) from None
        except (pai_errors.ModelAPIError, pai_errors.UnexpectedModelBehavior) as exc:
            raise ProviderError(f"{self.name}: {_one_line(str(exc))}{_root_cause(exc)}") from None
        except httpx2.TimeoutException:
            raise ModelTimeout(f"{self.name}: no reply within {request.timeout:.1f} s") from None
        except httpx2.HTTPError as exc:
            raise ProviderError(f"{self.name}: {type(exc).__name__}: {exc}") from None
        return from_pai_response(response)

    async def aclose(self) -> None:
        await self.tokens.aclose()
        if self._close is not None:
            await self._close()


def to_pai_messages(request: Request) -> list[pai.ModelMessage]:
    """System prompt first, then the turns; assistant turns are plain text."""
    out: list[pai.ModelMessage] = []
    for index, message in enumerate(request.messages):
        if message.role == "assistant":
            out.append(pai.ModelResponse(parts=[pai.TextPart(message.content)]))
            continue
        parts: list[Any] = []
        if index == 0 and request.system:
            parts.append(pai.SystemPromptPart(request.system))
        parts.append(pai.UserPromptPart(message.content))
        out.append(pai.ModelRequest(parts=parts))
    return out


def request_parameters(request: Request) -> ModelRequestParameters:
    """The output part of the request, by the profile's output mode."""
    schema = request.output
    if schema is None or request.mode == "prompted_json":
        return ModelRequestParameters(output_mode="text", allow_text_output=True)
    if request.mode == "json_schema":
        return ModelRequestParameters(
            output_mode="native",
            output_object=OutputObjectDefinition(
                json_schema=schema.json_schema, name=schema.name, description=schema.description
            ),
            allow_text_output=False,
        )
    tool = ToolDefinition(
        name=schema.name,
        parameters_json_schema=schema.json_schema,
        description=schema.description or f"Give the {schema.name}.",
        kind="output",
    )
    return ModelRequestParameters(output_mode="tool", output_tools=[tool], allow_text_output=False)


def from_pai_response(response: pai.ModelResponse) -> Reply:
    """Text (or the output tool's arguments as JSON) and the counts the endpoint reported."""
    texts: list[str] = []
    for part in response.parts:
        if isinstance(part, pai.ToolCallPart):
            texts.append(part.args_as_json_str())
        elif isinstance(part, pai.TextPart):
            texts.append(part.content)
    usage = response.usage
    reported = bool(usage.input_tokens or usage.output_tokens)
    return Reply(
        text="".join(texts),
        input_tokens=usage.input_tokens if reported else None,
        output_tokens=usage.output_tokens if reported else None,
        finish_reason=response.finish_reason,
        model_name=response.model_name,
    )


def _root_cause(exc: BaseException) -> str:
    """`` (ConnectError: ...)`` for the innermost cause, which says what really failed."""
    root = exc
    for _ in range(10):  # exception chains can loop
        inner = root.__cause__ or root.__context__
        if inner is None:
            break
        root = inner
    if root is exc:
        return ""
    return f" ({type(root).__name__}: {_one_line(str(root))[:_BODY_CHARS]})"


def _short(body: object) -> str:
    if body is None:
        return ""
    return _one_line(str(body))[:_BODY_CHARS]


def _one_line(text: str) -> str:
    return " ".join(text.split())
