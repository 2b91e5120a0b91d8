"""Reasoning text (``<think>…</think>``) is stripped from every reply, once, in the typed
call: what is parsed, echoed back on a retry, returned and shown never holds it."""

from __future__ import annotations

import asyncio

import pytest
from pydantic import BaseModel

from assay.models import InvalidOutput, typed_call
from assay.models.reasoning import strip_reasoning
from assay.models.testing import ScriptedModel


class Answer(BaseModel):
    city: str
    note: str = ""


@pytest.mark.parametrize(
    ("reply", "kept"),
    [
        ('<think>They ask {a city}.</think>\n{"city": "Paris"}', '{"city": "Paris"}'),
        ('<THINKING>hmm</THINKING>{"city": "Paris"}', '{"city": "Paris"}'),
        (
            '{"city": "Paris", "note": "<reasoning>x</reasoning>ok"}',
            '{"city": "Paris", "note": "ok"}',
        ),
        ("<think>cut off at max_tokens, never closed", ""),
        ('the template opened it in the prompt</think>\n{"city": "Paris"}', '{"city": "Paris"}'),
        ('{"city": "Paris"}', '{"city": "Paris"}'),
    ],
)
def test_strip_reasoning(reply: str, kept: str) -> None:
    assert strip_reasoning(reply) == kept


def test_the_typed_call_never_returns_parses_or_echoes_reasoning() -> None:
    model = ScriptedModel(
        [
            "<think>first I will write no JSON at all</think>Sorry.",
            'Let me see.</think>{"city": "Paris", "note": "<think>aside</think>capital"}',
        ]
    )
    result = asyncio.run(
        typed_call(model, system="Answer.", prompt="Capital of France?", output=Answer, timeout=5)
    )
    assert result.output == Answer(city="Paris", note="capital")
    assert "think" not in result.text and "Let me see" not in result.text
    echoed = model.requests[1].messages[1]
    assert echoed.role == "assistant" and echoed.content == "Sorry."


def test_a_reply_that_is_only_reasoning_is_invalid_without_the_reasoning() -> None:
    model = ScriptedModel(["<think>no end in sight"] * 2)
    with pytest.raises(InvalidOutput) as caught:
        asyncio.run(typed_call(model, system="", prompt="Q?", output=Answer, timeout=5, retries=1))
    assert caught.value.last_text == ""
    assert "only reasoning" in caught.value.feedback[0]
