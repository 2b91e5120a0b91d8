"""``llamacpp:`` against the REAL local llama-server (../shared/tools/local-llm), marked
``localllm``: the window is the server's own ``n_ctx`` and prompts are measured with its
``/tokenize``. Skips, saying why, when the server does not answer. One tiny model call."""

from __future__ import annotations

import asyncio
from pathlib import Path

import httpx2
import pytest
from pydantic import BaseModel

from assay.keys import KeyStore
from assay.models import ModelOptions, resolve_model, typed_call
from assay.models.step import ModelStep
from assay.models.window import context_window
from tests.localllm_fixtures import BASE_URL, MODEL_NAME

pytestmark = pytest.mark.localllm


class City(BaseModel):
    city: str


def test_llamacpp_fits_prompts_to_the_servers_window(
    allow_requests: None, isolated_home: Path
) -> None:
    async def scenario() -> tuple[int, int, int, bool, str]:
        async with httpx2.AsyncClient(trust_env=False, timeout=60) as http:
            options = ModelOptions(
                base_url=BASE_URL, keys=KeyStore(isolated_home), http_client=http, sdk_retries=0
            )
            model = resolve_model(f"llamacpp:{MODEL_NAME}", options)
            window = await context_window(model)
            # "Paris" is one token in Qwen's vocabulary; the estimate says 2 (chars/4 rounded up)
            measured = await model.tokens.count("Paris Paris Paris Paris")
            step = ModelStep(model, timeout=120, max_tokens=window - 400)
            passages = [f"Note {n}: Paris is the capital of France." for n in range(40)]
            fitted = await step.fit(
                "Reply with the city.",
                lambda kept: "\n".join(passages[i] for i in kept) + "\nWhich city?",
                len(passages),
                City,
            )
            reply = await typed_call(
                model, system="Reply with the city.", prompt="Capital of France? One word.",
                output=City, timeout=120, max_tokens=12, temperature=0.0,
            )  # fmt: skip
            assert fitted.tokens <= 400
            return window, measured, len(fitted.kept), model.tokens.exact, reply.output.city

    window, measured, kept, exact, city = asyncio.run(scenario())
    assert window > 512  # the server's n_ctx (8192 for the shared server), not a default
    assert exact is True and measured == 4  # the server's own tokenizer answered
    assert 0 < kept < 40  # 400 tokens of room for the prompt: some notes dropped
    assert "paris" in city.lower()
