"""The local-server shorthands (ollama:, lmstudio:, llamacpp:) and the context window every
prompt fits, against an imitation of llama-server (httpx2.MockTransport): chat
completions, ``POST /tokenize`` and ``GET /props``."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx2
import pytest
from pydantic import BaseModel

import assay.models
from assay.config import load_settings
from assay.errors import BadInputError
from assay.keys import KeyStore
from assay.models import (
    Model,
    ModelOptions,
    ProfileOverrides,
    model_from_settings,
    resolve_model,
    typed_call,
)
from assay.models.step import ModelStep
from assay.models.window import PromptTooLarge, context_window


class Answer(BaseModel):
    city: str


class LlamaServer:
    """What llama-server answers: one token per word from /tokenize, ``n_ctx`` from /props
    (404 for either when ``tokenizer`` is False, as Ollama and LM Studio answer)."""

    def __init__(self, *, n_ctx: int = 8192, tokenizer: bool = True) -> None:
        self.n_ctx = n_ctx
        self.tokenizer = tokenizer
        self.requests: list[httpx2.Request] = []

    def __call__(self, request: httpx2.Request) -> httpx2.Response:
        self.requests.append(request)
        path = request.url.path
        if path.endswith("/chat/completions"):
            message = {"role": "assistant", "content": '{"city": "Paris"}'}
            choice = {"index": 0, "finish_reason": "stop", "message": message}
            payload = {"id": "c", "object": "chat.completion", "created": 1, "model": "m",
                       "choices": [choice]}  # fmt: skip
            return httpx2.Response(200, json=payload)
        if self.tokenizer and path == "/tokenize":
            words = json.loads(request.content)["content"].split()
            return httpx2.Response(200, json={"tokens": list(range(len(words)))})
        if self.tokenizer and path == "/props":
            return httpx2.Response(200, json={"default_generation_settings": {"n_ctx": self.n_ctx}})
        return httpx2.Response(404, json={"error": {"message": "File Not Found"}})

    def paths(self) -> list[str]:
        return [f"{r.method} {r.url.host}:{r.url.port}{r.url.path}" for r in self.requests]

    def chat(self) -> httpx2.Request:
        return next(r for r in self.requests if r.url.path.endswith("/chat/completions"))


@pytest.fixture(autouse=True)
def allowed_for_fake_transports() -> Iterator[None]:
    with assay.models.model_requests_allowed(True):
        yield


def local(spec: str, server: LlamaServer, home: Path, **options: Any) -> Model:
    http = httpx2.AsyncClient(transport=httpx2.MockTransport(server))
    return resolve_model(
        spec, ModelOptions(keys=KeyStore(home), http_client=http, sdk_retries=0, **options)
    )


def ask(model: Model, prompt: str = "Capital of France?", **kwargs: Any) -> Any:
    kwargs.setdefault("max_tokens", 50)
    return asyncio.run(
        typed_call(model, system="Answer.", prompt=prompt, output=Answer, timeout=5, **kwargs)
    )


@pytest.mark.parametrize(
    ("provider", "address"),
    [("ollama", "127.0.0.1:11434"), ("lmstudio", "127.0.0.1:1234"), ("llamacpp", "127.0.0.1:8080")],
)
def test_a_shorthand_fills_in_the_servers_address_and_a_dummy_key(
    provider: str, address: str, isolated_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-openai-never-local")
    server = LlamaServer()
    model = local(f"{provider}:qwen3:1.7b", server, isolated_home)
    assert model.name == f"{provider}:qwen3:1.7b"
    assert ask(model).output == Answer(city="Paris")
    chat = server.chat()
    assert f"{chat.url.host}:{chat.url.port}{chat.url.path}" == f"{address}/v1/chat/completions"
    assert chat.headers["authorization"] == "Bearer not-needed"  # never the OpenAI key
    body = json.loads(chat.content)
    assert body["model"] == "qwen3:1.7b"
    assert body["response_format"]["type"] == "json_schema"  # a local server's profile


def test_base_url_and_the_key_store_override_the_shorthand(isolated_home: Path) -> None:
    KeyStore(isolated_home).save("OLLAMA_API_KEY", "ollama-own-key-123")
    server = LlamaServer()
    model = local("ollama:llama3.2", server, isolated_home, base_url="http://gpu.lan:11434/v1/")
    ask(model)
    chat = server.chat()
    assert str(chat.url) == "http://gpu.lan:11434/v1/chat/completions"
    assert chat.headers["authorization"] == "Bearer ollama-own-key-123"


def test_llamacpp_measures_with_the_servers_tokenizer_and_window(isolated_home: Path) -> None:
    server = LlamaServer(n_ctx=2048)
    model = local("llamacpp:qwen", server, isolated_home)
    assert asyncio.run(context_window(model)) == 2048
    ask(model)
    assert "POST 127.0.0.1:8080/tokenize" in server.paths()
    assert model.tokens.exact is True


def test_a_configured_window_wins_over_the_servers(isolated_home: Path) -> None:
    server = LlamaServer(n_ctx=2048)
    model = local(
        "llamacpp:qwen", server, isolated_home, profile=ProfileOverrides(context_window=1024)
    )
    assert asyncio.run(context_window(model)) == 1024
    assert "GET 127.0.0.1:8080/props" not in server.paths()


def test_a_server_without_a_tokenizer_is_estimated(isolated_home: Path) -> None:
    server = LlamaServer(tokenizer=False)
    model = local("llamacpp:qwen", server, isolated_home)
    assert asyncio.run(context_window(model)) == 4096  # the provider's default
    assert ask(model).output == Answer(city="Paris")
    assert model.tokens.exact is False


def test_context_tokens_from_the_settings(isolated_home: Path) -> None:
    settings = load_settings(home=isolated_home, model="ollama:llama3.2", context_tokens=16384)
    model = model_from_settings(settings)
    assert model is not None and model.profile.context_window == 16384
    assert model.profile.output_mode == "json_schema"


def test_a_prompt_over_the_window_is_refused_before_anything_is_sent(isolated_home: Path) -> None:
    server = LlamaServer(n_ctx=600)
    model = local("llamacpp:qwen", server, isolated_home)
    with pytest.raises(PromptTooLarge, match="context window of 600 tokens"):
        ask(model, prompt="word " * 700)
    assert not any(r.url.path.endswith("/chat/completions") for r in server.requests)


def test_fitting_drops_the_lowest_ranked_passages_and_never_the_instructions(
    isolated_home: Path,
) -> None:
    server = LlamaServer(n_ctx=700)
    model = local("llamacpp:qwen", server, isolated_home)
    step = ModelStep(model, max_tokens=100)
    passages = [f"passage{n} " + "filler " * 99 for n in range(8)]  # 100 tokens each
    ranks = [3, 7, 1, 6, 0, 5, 2, 4]  # passage 4 is the best, passage 1 the worst

    def render(kept: Any) -> str:
        return "INSTRUCTIONS keep me\n" + "\n".join(passages[i] for i in kept) + "\nQUESTION?"

    order = sorted(range(8), key=lambda i: -ranks[i])  # the worst first
    fitted = asyncio.run(step.fit("SYSTEM", render, len(passages), Answer, drop_order=order))
    assert fitted.kept == tuple(sorted(i for i in range(8) if ranks[i] < len(fitted.kept)))
    assert len(fitted.kept) == 5  # 5 passages of 100 tokens and the frame fit in 600
    assert fitted.prompt.startswith("INSTRUCTIONS keep me") and fitted.prompt.endswith("?")
    assert fitted.tokens <= 700 - 100
    reply = asyncio.run(step.ask("SYSTEM", fitted.prompt, Answer, "Answer"))
    assert reply == Answer(city="Paris")
    with pytest.raises(PromptTooLarge):
        asyncio.run(step.fit("SYSTEM " * 650, render, len(passages), Answer))


def test_a_served_request_cannot_reach_a_shorthands_server_it_was_not_offered(
    isolated_home: Path,
) -> None:
    from assay.protocols.launch import StartRun
    from assay.protocols.served import ServedChoices

    base = load_settings(home=isolated_home, model="openai:own", base_url="http://vllm.lab/v1")
    offered = ServedChoices.offered(base, models=["llamacpp:small"])

    def resolved(**fields: Any) -> tuple[str | None, str | None]:
        served = offered.resolve(StartRun(topic="t", **fields), base)
        return served.settings.model, served.settings.base_url

    # an offered shorthand goes to its own server, never to the server's vllm endpoint
    assert resolved(model="llamacpp:small") == ("llamacpp:small", None)
    for refused in (
        {"model": "ollama:llama3.2"},  # not offered
        {"model": "llamacpp:small", "base_url": "http://127.0.0.1:11434/v1"},  # not offered
        {"model": "lmstudio:any"},
    ):
        with pytest.raises(BadInputError):
            resolved(**refused)


def test_context_tokens_through_the_cli_and_the_environment(
    isolated_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from typer.testing import CliRunner

    from assay.cli import app
    from assay.cli.options import CommonOptions

    assert CommonOptions(context_tokens=4096).settings().context_tokens == 4096
    monkeypatch.setenv("ASSAY_CONTEXT_TOKENS", "16384")
    assert CommonOptions().settings().context_tokens == 16384
    result = CliRunner().invoke(app, ["ask", "Q?", "--context-tokens", "100", "--quiet"])
    assert result.exit_code == 2 and "--context-tokens" in result.output


def test_a_key_brought_for_a_shorthands_default_server_meets_the_address_guard(
    isolated_home: Path,
) -> None:
    from assay.web.app import ServerConfig, create_app
    from tests.web.test_api import api_client, run_async, wait_done

    settings = load_settings(home=isolated_home, search="local")  # no allow_hosts
    app = create_app(ServerConfig(settings))
    body = {"topic": "Capital of France?", "model": "llamacpp:x", "api_key": "own-key-123456"}

    async def scenario() -> None:
        async with api_client(app) as client:
            started = await client.post("/api/v1/runs", json=body)
            assert started.status_code == 202, started.text
            detail = await wait_done(client, started.json()["id"])
            assert detail["status"] == "failed"
            assert "127.0.0.1 is loopback and not allow-listed" in detail["run"]["reason"]

    run_async(scenario)
