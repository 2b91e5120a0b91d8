"""Every prompt fits its model's context window; this module is the one owner of that rule.

A request needs room for: the system prompt with the output's schema instructions, each
turn, ``MESSAGE_OVERHEAD`` tokens per message for the chat template, the wire schema
where the endpoint is sent one that is not also in the prompt, and ``max_tokens`` of
reply. The window is the configured one (``context_tokens`` / ``--context-tokens``), else
the server's own where it says (llama-server's ``n_ctx``), else the provider's default;
tokens are counted by the model's ``TokenCounter`` (``models/tokens.py``).

- ``fit_prompt`` is for the callers whose prompts carry evidence (passages, sentences,
  claims): it drops the lowest-ranked items until the prompt fits, and never the
  instructions, the schema or the frame around the items.
- ``typed_call`` checks every request with ``request_tokens`` before it is sent: a first
  attempt that does not fit is a ``PromptTooLarge``, and a retry drops its oldest
  feedback turns first.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from assay.errors import ProviderError
from assay.models.base import Message, Model, OutputSchema
from assay.models.tokens import estimated_tokens

MESSAGE_OVERHEAD = 8
"""Chat-template tokens per message (role markers, separators): Qwen's ChatML adds 5."""


class PromptTooLarge(ProviderError):
    """The instructions alone, with room for the reply, do not fit the context window."""


async def context_window(model: Model) -> int:
    """The tokens one request to ``model`` may use, prompt and reply together."""
    if model.window_from_server:
        reported = await model.tokens.server_window()
        if reported is not None:
            return reported
    return model.profile.context_window


async def request_tokens(
    model: Model, system: str, messages: Sequence[Message], schema: OutputSchema | None
) -> int:
    """The prompt tokens of a request (see the module docstring)."""
    total = (len(messages) + 1) * MESSAGE_OVERHEAD + await model.tokens.count(system)
    for message in messages:
        total += await model.tokens.count(message.content)
    profile = model.profile
    if (
        schema is not None
        and profile.output_mode != "prompted_json"
        and not (profile.schema_in_prompt)
    ):
        total += estimated_tokens(str(schema.json_schema))
    return total


def too_large(model: str, needed: int, reply: int, window: int) -> PromptTooLarge:
    return PromptTooLarge(
        f"{model}: the prompt needs {needed} tokens and the reply {reply}, over the "
        f"model's context window of {window} tokens; raise context_tokens "
        "(--context-tokens) if the model has more"
    )


@dataclass(frozen=True)
class Fitted:
    """A prompt that fits, and which of the caller's items it kept."""

    prompt: str
    kept: tuple[int, ...]
    """Indices into the caller's items, in their prompt order."""
    tokens: int
    """The whole request's prompt tokens."""

    def dropped(self, count: int) -> int:
        return count - len(self.kept)


async def fit_prompt(
    model: Model,
    *,
    system: str,
    render: Callable[[Sequence[int]], str],
    count: int,
    max_tokens: int,
    drop_order: Sequence[int] | None = None,
    schema: OutputSchema | None = None,
) -> Fitted:
    """The prompt ``render(kept)`` with as many of the ``count`` items as fit.

    ``system`` is the system prompt as sent (with the schema instructions, see
    ``call.system_prompt``); ``render`` writes the user prompt around the items it is given
    (indices, in prompt order). ``drop_order`` lists the indices lowest-ranked first; by
    default the items are ranked in prompt order and the last is dropped first. Raises
    ``PromptTooLarge`` when even ``render([])`` does not fit.
    """
    order = list(drop_order) if drop_order is not None else list(range(count - 1, -1, -1))
    if sorted(order) != list(range(count)):
        raise ValueError("drop_order must list every item index once")
    window = await context_window(model)
    room = window - min(max_tokens, window)

    async def measure(dropped: int) -> tuple[str, tuple[int, ...], int]:
        kept = tuple(sorted(order[dropped:]))
        prompt = render(kept)
        return prompt, kept, await request_tokens(model, system, [Message("user", prompt)], schema)

    best = await measure(0)
    if best[2] <= room:
        return Fitted(*best)
    least = await measure(count)
    if least[2] > room:
        raise too_large(model.name, least[2], min(max_tokens, window), window)
    low, high = 0, count  # measure(low) is over the room, measure(high) fits
    best = least
    while high - low > 1:
        middle = (low + high) // 2
        trial = await measure(middle)
        if trial[2] <= room:
            high, best = middle, trial
        else:
            low = middle
    return Fitted(*best)
