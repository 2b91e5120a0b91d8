"""Test doubles shipped in the package: a model whose replies are written in advance.

``ScriptedModel`` answers from a list, one item per request, or from a function of the
request (its system prompt, messages and output schema). An item may be:

- a ``str`` — the reply text, sent as it is (so it can be invalid on purpose);
- a ``dict``/``list`` or a pydantic object — sent as its JSON;
- a ``Reply`` — sent as it is, with the token counts it carries;
- a ``Stall`` — waits (for ever by default) before answering, to exercise timeouts;
- an exception instance — raised, to exercise provider failures.

It never touches the network, so ``ALLOW_MODEL_REQUESTS`` does not apply to it. Every
request it received is kept in ``requests`` for assertions.
"""

from __future__ import annotations

import asyncio
import inspect
import json
import math
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeAlias

from pydantic import BaseModel

from assay.errors import ProviderError
from assay.models.base import Model, Reply, Request
from assay.models.profiles import ModelProfile


@dataclass(frozen=True)
class Stall:
    """Wait ``seconds`` before replying with ``then`` (cancelled by the call's timeout)."""

    seconds: float = math.inf
    then: str = ""


ScriptItem: TypeAlias = (
    str | Mapping[str, Any] | Sequence[Any] | BaseModel | Reply | Stall | BaseException
)
ScriptFunction: TypeAlias = Callable[[Request], ScriptItem | Awaitable[ScriptItem]]


class ScriptedModel(Model):
    """A deterministic model for protocol tests; see the module docstring."""

    def __init__(
        self,
        script: Sequence[ScriptItem] | ScriptFunction,
        *,
        name: str = "scripted:model",
        profile: ModelProfile | None = None,
        usage: tuple[int, int] | None = None,
    ) -> None:
        """``usage`` makes every reply report those (input, output) counts; by default a
        scripted reply reports none, so its usage is estimated like an endpoint's that
        does not report."""
        super().__init__(name, profile or ModelProfile(output_mode="json_schema"))
        self._function: ScriptFunction | None = None
        self._items: list[ScriptItem] = []
        if callable(script):
            self._function = script
        else:
            self._items = list(script)
        self._usage = usage
        self.requests: list[Request] = []

    @property
    def remaining(self) -> int:
        """Replies left in a list script (0 for a function script)."""
        return max(0, len(self._items) - len(self.requests)) if self._function is None else 0

    async def request(self, request: Request) -> Reply:
        self.requests.append(request)
        item = await self._next(request)
        if isinstance(item, Stall):
            await asyncio.sleep(item.seconds if math.isfinite(item.seconds) else 1e9)
            item = item.then
        if isinstance(item, BaseException):
            raise item
        if isinstance(item, Reply):
            return item
        text = _render(item)
        input_tokens, output_tokens = self._usage if self._usage else (None, None)
        return Reply(
            text,
            input_tokens=input_tokens,
            output_tokens=output_tokens,
            finish_reason="stop",
            model_name=self.name,
        )

    async def _next(self, request: Request) -> ScriptItem:
        if self._function is not None:
            produced = self._function(request)
            if inspect.isawaitable(produced):
                return await produced
            return produced
        index = len(self.requests) - 1
        if index >= len(self._items):
            raise ProviderError(
                f"{self.name}: the script has no reply left (it had {len(self._items)})"
            )
        return self._items[index]


def _render(item: ScriptItem) -> str:
    if isinstance(item, str):
        return item
    if isinstance(item, BaseModel):
        return item.model_dump_json()
    return json.dumps(item)
