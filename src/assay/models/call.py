"""The typed call: every LLM step in assay goes through ``typed_call``.

One call sends a system prompt and a conversation, asks for one output type (a pydantic
model or a discriminated union of actions), validates the reply, and on an invalid reply
tells the model what was wrong and asks again, at most ``retries`` more times. A reply's
reasoning (``<think>…</think>``) is stripped here, before anything parses, echoes or shows
it (``models/reasoning.py``). Each
attempt is one model request: it asks the budget first, has ``max_tokens`` and a timeout
that never reaches past the call's deadline or the run's remaining wall time, and its
usage goes to the budget and the meter.

Errors (all ``ProviderError``s but the budget's):

    BudgetExhausted      the budget refused the next attempt
    ModelTimeout         the deadline passed while waiting for the model
    InvalidOutput        every attempt's reply failed validation (the feedback is kept)
    PromptTooLarge       the prompt and the reply's room exceed the context window
                         (``models/window.py``; evidence is fitted before, by the caller)
    ProviderError        the endpoint failed (HTTP error, refused connection...)
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from pydantic import TypeAdapter

from assay.budget import Budget
from assay.errors import ProviderError
from assay.language import writing_instruction
from assay.models.base import Message, Model, ModelTimeout, Reply, Request
from assay.models.output import OutputInvalid, OutputType
from assay.models.reasoning import strip_reasoning
from assay.models.usage import CallUsage, UsageMeter, measure
from assay.models.window import context_window, request_tokens, too_large

T = TypeVar("T")

_ECHO_CHARS = 2_000  # how much of an invalid reply is echoed back in the retry turn


class InvalidOutput(ProviderError):
    """The model's replies failed validation on every attempt."""

    def __init__(self, message: str, *, feedback: Sequence[str], last_text: str) -> None:
        super().__init__(message)
        self.feedback = tuple(feedback)
        self.last_text = last_text


@dataclass(frozen=True)
class CallResult(Generic[T]):
    """A validated output and what it cost."""

    output: T
    text: str
    """The text of the reply that validated, without its reasoning."""
    model: str
    attempts: int
    usage: CallUsage
    """All attempts added up (each was also recorded on the meter on its own)."""
    feedback: tuple[str, ...] = ()
    """The validation errors sent back to the model, one per retry."""


async def typed_call(
    model: Model,
    *,
    system: str,
    prompt: str | Sequence[Message],
    output: type[T] | TypeAdapter[T],
    timeout: float,  # noqa: ASYNC109 - the deadline of all attempts, enforced here
    max_tokens: int | None = None,
    retries: int = 2,
    budget: Budget | None = None,
    meter: UsageMeter | None = None,
    temperature: float | None = None,
    output_name: str | None = None,
) -> CallResult[T]:
    """Ask ``model`` for one ``output``; see the module docstring.

    ``timeout`` is the deadline of the whole call, retries included; ``max_tokens``
    defaults to the model profile's.
    """
    if timeout <= 0:
        raise ValueError("timeout must be positive")
    if retries < 0:
        raise ValueError("retries cannot be negative")
    if max_tokens is not None and max_tokens < 1:
        raise ValueError("max_tokens must be positive")
    spec = OutputType.of(output, output_name)
    profile = model.profile
    system = system_prompt(model, system, spec)
    messages = [Message("user", prompt)] if isinstance(prompt, str) else list(prompt)
    if not messages or messages[-1].role != "user":
        raise ValueError("the conversation must end with a user message")
    window = await context_window(model)
    tokens = min(max_tokens or profile.max_tokens, window)
    asked = len(messages)

    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    total = CallUsage(model.name, 0, 0)
    feedback: list[str] = []
    text = ""
    for attempt in range(1, retries + 2):
        left = deadline - loop.time()
        if budget is not None:
            left = budget.cap_timeout(left)
        if left <= 0:
            raise ModelTimeout(f"{model.name}: no time left for attempt {attempt}")
        messages = await _within_window(model, system, messages, asked, spec, window - tokens)
        if budget is not None:
            budget.charge_call()
        request = Request(
            system=system,
            messages=tuple(messages),
            output=spec.schema,
            mode=profile.output_mode,
            max_tokens=tokens,
            timeout=left,
            temperature=profile.temperature if temperature is None else temperature,
        )
        reply, usage = await _attempt(model, request, left)
        total = total + usage
        if budget is not None:
            budget.charge_tokens(usage.input_tokens, usage.output_tokens)
        if meter is not None:
            meter.record(usage)
        if reply is None:
            raise ModelTimeout(f"{model.name}: no reply within {left:.1f} s (attempt {attempt})")
        text = strip_reasoning(reply.text)
        try:
            value = spec.parse(text)
        except OutputInvalid as exc:
            note = exc.feedback
            if reply.finish_reason == "length":
                note += f"\nThe reply was cut off at {tokens} tokens: make it shorter."
            feedback.append(note)
            messages += [Message("assistant", text[:_ECHO_CHARS]), Message("user", _retry(note))]
            continue
        return CallResult(value, text, model.name, attempt, total, tuple(feedback))
    raise InvalidOutput(
        f"{model.name} gave no valid {spec.schema.name} in {retries + 1} attempts: "
        f"{feedback[-1].splitlines()[0] if feedback else 'no reply'}",
        feedback=feedback,
        last_text=text,
    )


def system_prompt(model: Model, system: str, spec: OutputType[Any]) -> str:
    """The system prompt as sent: with the run's language said (``assay.language``: none
    for English) and the schema described where the profile wants it."""
    profile = model.profile
    if said := writing_instruction():
        system = f"{system.rstrip()}\n\n{said}" if system else said
    if profile.output_mode == "prompted_json" or profile.schema_in_prompt:
        return f"{system.rstrip()}\n\n{spec.instructions()}" if system else spec.instructions()
    return system


async def _within_window(
    model: Model,
    system: str,
    messages: list[Message],
    asked: int,
    spec: OutputType[Any],
    room: int,
) -> list[Message]:
    """``messages`` as they fit in ``room`` prompt tokens: a retry's oldest feedback turns
    (after the ``asked`` ones) go first; what was asked never does (``PromptTooLarge``)."""
    while True:
        needed = await request_tokens(model, system, messages, spec.schema)
        if needed <= room:
            return messages
        if len(messages) - asked <= 2:  # only the newest feedback turn is left
            window = await context_window(model)
            raise too_large(model.name, needed, window - room, window)
        messages = [*messages[:asked], *messages[asked + 2 :]]


async def _attempt(model: Model, request: Request, left: float) -> tuple[Reply | None, CallUsage]:
    """One request; the reply is None when it timed out (its usage is then estimated)."""
    loop = asyncio.get_running_loop()
    started = loop.time()
    try:
        async with asyncio.timeout(left):
            reply = await model.request(request)
    except (TimeoutError, ModelTimeout):  # ours, or the HTTP client's
        return None, measure(model.name, model.profile, request, None, loop.time() - started)
    return reply, measure(model.name, model.profile, request, reply, loop.time() - started)


def _retry(note: str) -> str:
    return (
        "Your previous reply could not be used (this is an automatic check, not the user).\n"
        f"{note}\nReply again with only the corrected JSON object."
    )
