"""The openai and anthropic providers against faithful local imitations (httpx2.MockTransport).

Nothing here leaves the process: each model gets an ``httpx2.AsyncClient`` whose transport
is a function that answers as the vendor's API would.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Annotated, Any, Literal

import httpx2
import pytest
from pydantic import BaseModel, Field, TypeAdapter

import assay.models
from assay.errors import ProviderError
from assay.keys import KeyStore
from assay.models import (
    Model,
    ModelOptions,
    ModelRequestsBlocked,
    ModelTimeout,
    resolve_model,
    typed_call,
)

Handler = Callable[[httpx2.Request], httpx2.Response]
LOCAL = "http://127.0.0.1:8765/v1"


class Answer(BaseModel):
    city: str
    population: int


class WebSearch(BaseModel):
    kind: Literal["web_search"] = "web_search"
    queries: list[str]


class Finish(BaseModel):
    kind: Literal["finish"] = "finish"
    answer: str


ACTION: TypeAdapter[WebSearch | Finish] = TypeAdapter(
    Annotated[WebSearch | Finish, Field(discriminator="kind")]
)


class Recorder:
    """An imitation endpoint: answers with queued replies and keeps what it was sent."""

    def __init__(self, *replies: Handler) -> None:
        self.replies = list(replies)
        self.requests: list[httpx2.Request] = []

    def __call__(self, request: httpx2.Request) -> httpx2.Response:
        self.requests.append(request)
        return self.replies.pop(0)(request)

    def body(self, index: int = -1) -> dict[str, Any]:
        data: dict[str, Any] = json.loads(self.requests[index].content)
        return data

    def client(self) -> httpx2.AsyncClient:
        return httpx2.AsyncClient(transport=httpx2.MockTransport(self))


def chat_completion(content: str, *, usage: bool = True, finish: str = "stop") -> Handler:
    payload: dict[str, Any] = {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "created": 1_764_000_000,
        "model": "qwen2.5-coder-1.5b-instruct",
        "choices": [
            {
                "index": 0,
                "finish_reason": finish,
                "message": {"role": "assistant", "content": content},
            }
        ],
    }
    if usage:
        payload["usage"] = {"prompt_tokens": 120, "completion_tokens": 17, "total_tokens": 137}
    return lambda request: httpx2.Response(200, json=payload)


def anthropic_message(content: list[dict[str, Any]], stop: str = "end_turn") -> Handler:
    payload = {
        "id": "msg_01",
        "type": "message",
        "role": "assistant",
        "model": "claude-3-haiku-20240307",
        "content": content,
        "stop_reason": stop,
        "stop_sequence": None,
        "usage": {"input_tokens": 250, "output_tokens": 30},
    }
    return lambda request: httpx2.Response(200, json=payload)


def status(code: int, message: str) -> Handler:
    body = {"error": {"message": message, "type": "server_error"}}
    return lambda request: httpx2.Response(code, json=body)


@pytest.fixture(autouse=True)
def allowed_for_fake_transports() -> Iterator[None]:
    # Every request in this module goes to a MockTransport; the switch guards real ones.
    with assay.models.model_requests_allowed(True):
        yield


@pytest.fixture
def keys(isolated_home: Path) -> KeyStore:
    return KeyStore(isolated_home)


def local_model(endpoint: Recorder, keys: KeyStore, base_url: str = LOCAL) -> Model:
    options = ModelOptions(
        base_url=base_url, keys=keys, http_client=endpoint.client(), sdk_retries=0
    )
    return resolve_model("openai:qwen2.5-coder-1.5b-instruct", options)


def call(model: Model, output: Any = Answer, **kwargs: Any) -> Any:
    kwargs.setdefault("timeout", 5)
    return asyncio.run(
        typed_call(model, system="Answer exactly.", prompt="Paris?", output=output, **kwargs)
    )


def test_local_endpoint_gets_a_json_schema_response_format(keys: KeyStore) -> None:
    endpoint = Recorder(chat_completion('{"city": "Paris", "population": 2}'))
    result = call(local_model(endpoint, keys), max_tokens=200, temperature=0.0)
    assert result.output == Answer(city="Paris", population=2)
    assert result.usage.input_tokens == 120
    assert result.usage.output_tokens == 17
    assert result.usage.estimated is False
    sent = endpoint.requests[0]
    assert str(sent.url) == f"{LOCAL}/chat/completions"
    assert sent.headers["authorization"] == "Bearer not-needed"
    body = endpoint.body()
    assert body["model"] == "qwen2.5-coder-1.5b-instruct"
    assert body["max_tokens"] == 200
    assert "max_completion_tokens" not in body
    assert body["temperature"] == 0.0
    assert body["messages"][0]["role"] == "system"
    assert body["messages"][0]["content"].startswith("Answer exactly.")
    assert body["messages"][1] == {"role": "user", "content": "Paris?"}
    response_format = body["response_format"]
    assert response_format["type"] == "json_schema"
    assert response_format["json_schema"]["name"] == "Answer"
    assert response_format["json_schema"]["schema"]["required"] == ["city", "population"]
    assert "tools" not in body


def test_a_configured_key_is_sent_to_a_custom_endpoint(keys: KeyStore) -> None:
    keys.save("OPENAI_API_KEY", "sk-local-123456")
    endpoint = Recorder(chat_completion('{"city": "Paris", "population": 2}'))
    call(local_model(endpoint, keys))
    assert endpoint.requests[0].headers["authorization"] == "Bearer sk-local-123456"


def test_openai_service_gets_max_completion_tokens(keys: KeyStore) -> None:
    keys.save("OPENAI_API_KEY", "sk-test-abcdef")
    endpoint = Recorder(chat_completion('{"city": "Paris", "population": 2}'))
    options = ModelOptions(keys=keys, http_client=endpoint.client(), sdk_retries=0)
    model = resolve_model("openai:gpt-4o-mini", options)
    call(model, max_tokens=300)
    assert str(endpoint.requests[0].url) == "https://api.openai.com/v1/chat/completions"
    assert endpoint.requests[0].headers["authorization"] == "Bearer sk-test-abcdef"
    body = endpoint.body()
    assert body["max_completion_tokens"] == 300
    assert body["response_format"]["type"] == "json_schema"
    assert body["messages"][0]["content"] == "Answer exactly."  # no schema in the prompt


def test_unknown_endpoint_uses_prompted_json_and_tolerant_parsing(keys: KeyStore) -> None:
    endpoint = Recorder(
        chat_completion(
            "<think>They ask about Paris.</think>Sure:\n```json\n"
            '{"city": "Paris", "population": 2,}\n```',
            usage=False,
        )
    )
    result = call(local_model(endpoint, keys, "https://llm.example.test/v1"))
    assert result.output == Answer(city="Paris", population=2)
    assert result.usage.estimated is True
    body = endpoint.body()
    assert "response_format" not in body
    assert "JSON schema" in body["messages"][0]["content"]


def test_retry_over_the_wire_sends_the_feedback(keys: KeyStore) -> None:
    endpoint = Recorder(
        chat_completion('{"city": "Paris"}'),
        chat_completion('{"result": {"kind": "finish", "answer": "Paris"}}'),
    )
    endpoint.replies[0] = chat_completion('{"result": {"kind": "web_search", "queries": 3}}')
    result = call(local_model(endpoint, keys), output=ACTION)
    assert result.output == Finish(answer="Paris")
    assert result.attempts == 2
    assert result.usage.input_tokens == 240
    messages = endpoint.body(1)["messages"]
    assert [m["role"] for m in messages] == ["system", "user", "assistant", "user"]
    assert "queries" in messages[3]["content"]
    schema = endpoint.body(0)["response_format"]["json_schema"]["schema"]
    assert schema["required"] == ["result"]


def test_http_errors_are_provider_errors(keys: KeyStore) -> None:
    endpoint = Recorder(status(500, "the model crashed"))
    with pytest.raises(ProviderError, match=r"HTTP 500: .*the model crashed"):
        call(local_model(endpoint, keys))
    assert len(endpoint.requests) == 1  # sdk_retries=0: no hidden retries
    endpoint = Recorder(status(429, "slow down"))
    with pytest.raises(ProviderError, match="HTTP 429"):
        call(local_model(endpoint, keys))


def test_refused_connection_is_a_provider_error(keys: KeyStore) -> None:
    def refuse(request: httpx2.Request) -> httpx2.Response:
        raise httpx2.ConnectError("Connection refused", request=request)

    with pytest.raises(ProviderError, match="Connection refused"):
        call(local_model(Recorder(refuse), keys))


def test_a_stalled_endpoint_times_out(keys: KeyStore) -> None:
    async def stall(request: httpx2.Request) -> httpx2.Response:
        await asyncio.sleep(30)
        return httpx2.Response(500)

    client = httpx2.AsyncClient(transport=httpx2.MockTransport(stall))
    options = ModelOptions(base_url=LOCAL, keys=keys, http_client=client, sdk_retries=0)
    model = resolve_model("openai:qwen", options)
    with pytest.raises(ModelTimeout):
        call(model, timeout=0.3)


# The model is one without structured outputs, so pydantic-ai answers through a tool (what
# this test checks); that such a model is retired by now is pydantic-ai's warning, not ours.
@pytest.mark.filterwarnings("ignore::pydantic_ai.exceptions.DeprecatedModelWarning")
def test_anthropic_tool_mode(keys: KeyStore) -> None:
    keys.save("ANTHROPIC_API_KEY", "sk-ant-test-123")
    endpoint = Recorder(
        anthropic_message(
            [
                {
                    "type": "tool_use",
                    "id": "toolu_01",
                    "name": "Answer",
                    "input": {"city": "Rome", "population": 3},
                }
            ],
            stop="tool_use",
        )
    )
    options = ModelOptions(keys=keys, http_client=endpoint.client(), sdk_retries=0)
    model = resolve_model("anthropic:claude-3-haiku-20240307", options)
    result = call(model, max_tokens=512)
    assert result.output == Answer(city="Rome", population=3)
    assert (result.usage.input_tokens, result.usage.output_tokens) == (250, 30)
    sent = endpoint.requests[0]
    assert str(sent.url) == "https://api.anthropic.com/v1/messages"
    auth = sent.headers.get("x-api-key") or sent.headers["authorization"]
    assert auth.endswith("sk-ant-test-123")
    assert "anthropic-version" in sent.headers
    body = endpoint.body()
    assert body["system"] == "Answer exactly."
    assert body["max_tokens"] == 512
    assert body["tool_choice"]["type"] in ("any", "tool")
    assert [tool["name"] for tool in body["tools"]] == ["Answer"]
    assert body["tools"][0]["input_schema"]["required"] == ["city", "population"]


def test_anthropic_structured_output_mode(keys: KeyStore) -> None:
    keys.save("ANTHROPIC_API_KEY", "sk-ant-test-123")
    endpoint = Recorder(
        anthropic_message([{"type": "text", "text": '{"city": "Rome", "population": 3}'}])
    )
    options = ModelOptions(keys=keys, http_client=endpoint.client(), sdk_retries=0)
    result = call(resolve_model("anthropic:claude-sonnet-5", options))
    assert result.output.city == "Rome"
    body = endpoint.body()
    assert "tools" not in body
    assert "json_schema" in json.dumps(body)


def test_real_requests_are_refused_when_the_switch_is_off(keys: KeyStore) -> None:
    endpoint = Recorder(chat_completion('{"city": "Paris", "population": 2}'))
    model = local_model(endpoint, keys)
    with assay.models.model_requests_allowed(False), pytest.raises(ModelRequestsBlocked):
        call(model)
    assert endpoint.requests == []
    import pydantic_ai.models

    with assay.models.model_requests_allowed(False):
        assert pydantic_ai.models.ALLOW_MODEL_REQUESTS is False
    assert pydantic_ai.models.ALLOW_MODEL_REQUESTS is True


def test_aclose_closes_the_client_the_provider_opened(keys: KeyStore) -> None:
    model = resolve_model("openai:qwen", ModelOptions(base_url=LOCAL, keys=keys))
    client = model.inner.client  # type: ignore[attr-defined]
    assert not client.is_closed()
    asyncio.run(model.aclose())
    assert client.is_closed()
    endpoint = Recorder()
    shared = endpoint.client()
    model = resolve_model(
        "openai:qwen", ModelOptions(base_url=LOCAL, keys=keys, http_client=shared)
    )
    asyncio.run(model.aclose())
    assert not shared.is_closed  # the caller's client stays the caller's
