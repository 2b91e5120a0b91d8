"""The switch that blocks real model requests (the test suite turns it off).

Every adapter, and the token counter that asks a server to count, calls
``check_model_requests_allowed`` before it sends anything: with
``assay.models.ALLOW_MODEL_REQUESTS`` false, a request that would leave the process
raises ``ModelRequestsBlocked`` instead.
"""

from __future__ import annotations

import sys


class ModelRequestsBlocked(RuntimeError):
    """A real model request was attempted while ``ALLOW_MODEL_REQUESTS`` is false."""


def model_requests_are_allowed() -> bool:
    package = sys.modules.get("assay.models")
    return bool(getattr(package, "ALLOW_MODEL_REQUESTS", True))


def check_model_requests_allowed(name: str) -> None:
    """Raise ``ModelRequestsBlocked`` unless real requests are allowed (adapters call this)."""
    if not model_requests_are_allowed():
        raise ModelRequestsBlocked(
            f"a real request to {name} was attempted while assay.models.ALLOW_MODEL_REQUESTS "
            "is False; use assay.models.testing.ScriptedModel in tests"
        )
