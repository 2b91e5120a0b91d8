"""``ollama:``, ``lmstudio:`` and ``llamacpp:`` — local OpenAI-compatible servers by name.

Each is the ``openai`` wire format with its server's default address and a dummy key
filled in, so ``--model ollama:llama3.2`` needs nothing else:

    provider   default base URL             key variable       context window
    ollama     http://127.0.0.1:11434/v1    OLLAMA_API_KEY     4096 (Ollama's num_ctx)
    lmstudio   http://127.0.0.1:1234/v1     LMSTUDIO_API_KEY   4096 (LM Studio's default)
    llamacpp   http://127.0.0.1:8080/v1     LLAMACPP_API_KEY   the server's n_ctx

``--base-url`` / ``base_url`` overrides the address, and a key in the key store or the
environment (under the variable above, never ``OPENAI_API_KEY``, so an OpenAI key is
never sent to a local server) replaces the dummy one, for a server started with
``--api-key``. ``context_tokens`` overrides the window. llama-server also counts prompt
tokens with its own tokenizer (``models/tokens.ServerTokenizer``); Ollama's and LM
Studio's OpenAI endpoints have none, so their prompts are estimated.

Ollama cuts a prompt longer than its ``num_ctx`` silently, from the front (where the
instructions are): set ``context_tokens`` to the ``num_ctx`` your model runs with.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from assay.models.base import Model
from assay.models.openai import build
from assay.models.profiles import openai_profile
from assay.models.registry import ModelOptions
from assay.models.tokens import ServerTokenizer, TokenCounter

DUMMY_KEY = "not-needed"  # the SDK insists on a key; these servers ignore it unless told


@dataclass(frozen=True)
class LocalServer:
    """One kind of local server: where it listens and how it is measured."""

    provider: str
    base_url: str
    key_variable: str
    context_window: int
    tokenizer_endpoint: bool = False


SERVERS: dict[str, LocalServer] = {
    server.provider: server
    for server in (
        LocalServer("ollama", "http://127.0.0.1:11434/v1", "OLLAMA_API_KEY", 4_096),
        LocalServer("lmstudio", "http://127.0.0.1:1234/v1", "LMSTUDIO_API_KEY", 4_096),
        LocalServer("llamacpp", "http://127.0.0.1:8080/v1", "LLAMACPP_API_KEY", 4_096, True),
    )
}


def create_local(server: LocalServer, model_name: str, options: ModelOptions) -> Model:
    base_url = (options.base_url or server.base_url).rstrip("/")
    own_key = options.key_store().get(server.key_variable)
    profile = replace(openai_profile(model_name, base_url), context_window=server.context_window)
    profile = profile.with_overrides(options.profile)
    tokens: TokenCounter | None = None
    if server.tokenizer_endpoint:
        tokens = ServerTokenizer(base_url, options.http_client, key=own_key)
    name = f"{server.provider}:{model_name}"
    model = build(name, profile, base_url, own_key or DUMMY_KEY, options, tokens=tokens)
    configured = options.profile is not None and options.profile.context_window is not None
    model.window_from_server = server.tokenizer_endpoint and not configured
    return model


def ollama(model_name: str, options: ModelOptions) -> Model:
    """The ``ollama`` entry point."""
    return create_local(SERVERS["ollama"], model_name, options)


def lmstudio(model_name: str, options: ModelOptions) -> Model:
    """The ``lmstudio`` entry point."""
    return create_local(SERVERS["lmstudio"], model_name, options)


def llamacpp(model_name: str, options: ModelOptions) -> Model:
    """The ``llamacpp`` entry point."""
    return create_local(SERVERS["llamacpp"], model_name, options)
