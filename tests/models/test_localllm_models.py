"""Typed calls against the REAL local model (../shared/tools/local-llm), marked ``localllm``.

Start the server first (``../shared/tools/local-llm start``); these tests skip, saying so,
when it does not answer ``GET {base}/models`` within 1 s. The address is read at import
time (``ASSAY_LOCAL_LLM_BASE_URL``, else ``$ASSAY_DEV_CACHE`` or ``~/.cache/assay-dev``
``server.port``), before the suite's autouse fixture strips ``ASSAY_*`` variables. Only a
loopback address is ever used.
"""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import Annotated, Any, Literal

import httpx2
import pytest
from pydantic import AfterValidator, BaseModel, Field, TypeAdapter

from assay.budget import Budget
from assay.keys import KeyStore
from assay.models import (
    CallResult,
    ModelOptions,
    ModelTimeout,
    UsageMeter,
    resolve_model,
    typed_call,
)
from tests.localllm_fixtures import BASE_URL, MODEL_NAME

pytestmark = pytest.mark.localllm


async def ask(
    system: str, prompt: str, output: Any, *, isolated: Path, **kwargs: Any
) -> CallResult[Any]:
    async with httpx2.AsyncClient(trust_env=False) as client:
        options = ModelOptions(
            base_url=BASE_URL, keys=KeyStore(isolated), http_client=client, sdk_retries=0
        )
        model = resolve_model(f"openai:{MODEL_NAME}", options)
        kwargs.setdefault("timeout", 180)
        kwargs.setdefault("max_tokens", 200)
        kwargs.setdefault("temperature", 0.0)
        return await typed_call(model, system=system, prompt=prompt, output=output, **kwargs)


class Landmark(BaseModel):
    name: str
    city: str
    country: str
    height_m: int


class WebSearch(BaseModel):
    """Search the web."""

    kind: Literal["web_search"]
    queries: list[str] = Field(min_length=1, max_length=3)


class ReadUrl(BaseModel):
    """Open one web page."""

    kind: Literal["read_url"]
    url: str


class Finish(BaseModel):
    """Give the final answer."""

    kind: Literal["finish"]
    answer: str


ACTION: TypeAdapter[WebSearch | ReadUrl | Finish] = TypeAdapter(
    Annotated[WebSearch | ReadUrl | Finish, Field(discriminator="kind")]
)

AGENT_SYSTEM = (
    "You are a research agent. Choose the single next action:\n"
    "- web_search: when you need to find sources; give 1-3 short search queries.\n"
    "- read_url: when the user gives a URL that must be read; give that URL.\n"
    "- finish: when the notes already contain the answer; give the answer."
)


def test_typed_call_returns_a_small_object(allow_requests: None, isolated_home: Path) -> None:
    meter = UsageMeter()
    budget = Budget(tokens=10_000, model_calls=5)
    started = time.monotonic()
    result = asyncio.run(
        ask(
            "Extract the facts from the text.",
            "The Eiffel Tower in Paris, France, is 330 metres tall.",
            Landmark,
            isolated=isolated_home,
            meter=meter,
            budget=budget,
        )
    )
    elapsed = time.monotonic() - started
    assert result.output.city == "Paris"
    assert result.output.country == "France"
    assert result.output.height_m == 330
    # usage as the endpoint reported it, on the result, the meter and the budget
    assert result.usage.estimated is False
    assert result.usage.input_tokens > 50
    assert 5 < result.usage.output_tokens < 200
    assert meter.totals.model_calls == result.attempts
    assert meter.totals.input_tokens == result.usage.input_tokens
    spent = budget.spent()
    assert spent.tokens == result.usage.input_tokens + result.usage.output_tokens
    print(f"\nlandmark: {elapsed:.1f} s, {result.attempts} attempt(s), {result.usage}")


@pytest.mark.parametrize(
    ("prompt", "kind"),
    [
        ("Question: what is the population of Lyon in 2024?\nNotes: (none yet)", "web_search"),
        ("Question: summarise https://example.org/report.html\nNotes: (none yet)", "read_url"),
        (
            "Question: what is the capital of Italy?\n"
            "Notes: [source 1] Rome is the capital of Italy.",
            "finish",
        ),
    ],
)
def test_agent_chooses_an_action_from_the_union(
    allow_requests: None, isolated_home: Path, prompt: str, kind: str
) -> None:
    started = time.monotonic()
    result = asyncio.run(
        ask(AGENT_SYSTEM, prompt, ACTION, isolated=isolated_home, output_name="Action")
    )
    elapsed = time.monotonic() - started
    assert result.output.kind == kind
    if isinstance(result.output, ReadUrl):
        assert result.output.url == "https://example.org/report.html"
    print(f"\n{kind}: {elapsed:.1f} s, {result.attempts} attempt(s), {result.output!r}")


def _capitals(value: str) -> str:
    if not value.isupper():
        raise ValueError("the city must be written in CAPITAL LETTERS, e.g. LONDON")
    return value


class ShoutedCity(BaseModel):
    city: Annotated[str, AfterValidator(_capitals)]


def test_a_rule_outside_the_schema_is_learnt_on_retry(
    allow_requests: None, isolated_home: Path
) -> None:
    # The schema cannot say "capitals": the first reply fails validation and the error
    # message, fed back, is the only way the model learns the rule.
    result = asyncio.run(
        ask(
            "Name the city the user asks about.",
            "Which city is the Eiffel Tower in?",
            ShoutedCity,
            isolated=isolated_home,
            max_tokens=40,
            retries=2,
        )
    )
    assert result.output.city == "PARIS"
    print(f"\nretry: {result.attempts} attempts, feedback={result.feedback!r}")
    assert result.attempts >= 2
    assert "CAPITAL LETTERS" in result.feedback[0]


class Essay(BaseModel):
    title: str
    text: str


def test_the_timeout_ends_a_long_generation(allow_requests: None, isolated_home: Path) -> None:
    # llama-server cancels the task when the connection closes (its log: "cancel task").
    started = time.monotonic()
    with pytest.raises(ModelTimeout):
        asyncio.run(
            ask(
                "Write long texts.",
                "Write a 1,500-word essay on the history of Paris.",
                Essay,
                isolated=isolated_home,
                timeout=3,
                max_tokens=1_500,
            )
        )
    assert time.monotonic() - started < 6
