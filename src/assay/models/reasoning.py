"""Reasoning text is never part of a reply: ``strip_reasoning`` removes it, once, in the
typed call (``models/call.py``), before the reply is parsed, echoed back or shown.

Reasoning models (DeepSeek-R1, Qwen3, QwQ...) behind Ollama, LM Studio or llama-server
write their chain of thought into the reply text as ``<think>…</think>`` (also spelled
``<thinking>`` or ``<reasoning>``). Three shapes are seen:

- closed blocks anywhere, even inside a JSON string: removed;
- a leading block that never closes (the reply was cut at max_tokens mid-thought): the
  whole reply is reasoning, so nothing is left;
- a closing tag with no opening one, because the chat template wrote ``<think>`` into the
  prompt: everything up to that tag is reasoning.
"""

from __future__ import annotations

import re

_TAGS = r"think|thinking|reasoning"
_BLOCK = re.compile(rf"<({_TAGS})>.*?</\1>\s*", re.DOTALL | re.IGNORECASE)
_OPEN_LEADING = re.compile(rf"^\s*<(?:{_TAGS})>", re.IGNORECASE)
_CLOSE = re.compile(rf"</(?:{_TAGS})>\s*", re.IGNORECASE)


def strip_reasoning(text: str) -> str:
    """``text`` without its reasoning (see the module docstring)."""
    text = _BLOCK.sub("", text)
    if _OPEN_LEADING.match(text):
        return ""
    closing = _CLOSE.search(text)
    if closing is not None:  # the template opened the block in the prompt
        text = text[closing.end() :]
    return text
