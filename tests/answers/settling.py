"""Scripts for the answer step's tests: the model's reading again when a rule disagrees.

When a rule answers otherwise than the model, the model is shown both answers and asked
again (``answers._both``); a test about something else scripts that request apart."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from assay.models.base import Request
from assay.models.testing import ScriptedModel

NEITHER = {"answer": "", "claims": []}
"""The settling reply that picks neither answer: the model's first answer stands."""


def settling(request: Request) -> bool:
    """Whether ``request`` shows the model its answer beside a rule's."""
    return "Answer with the one the claims show" in request.messages[0].content


def keeping(
    script: Sequence[object] | Callable[[Any], object],
    settled: object = NEITHER,
) -> Callable[[Request], Any]:
    """``script`` for the answer requests (a list is answered in turn), ``settled`` for the
    settling ones."""
    replies = [] if callable(script) else list(script)

    def reply(request: Request) -> Any:
        if settling(request):
            return settled(request) if callable(settled) else settled
        return script(request) if callable(script) else replies.pop(0)

    return reply


def asked(model: ScriptedModel) -> list[Request]:
    """The requests that asked the question itself (not the settling ones)."""
    return [r for r in model.requests if not settling(r)]
