"""The blocking twin of a coroutine function, for callers without an event loop.

``research = blocking(research_async)`` has the very signature of ``research_async`` (a
``ParamSpec`` carries it to type checkers; ``inspect.signature`` follows ``__wrapped__``),
so the two cannot drift apart and neither takes ``**options: Any``.
"""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Callable, Coroutine
from typing import Any, ParamSpec, TypeVar

P = ParamSpec("P")
R = TypeVar("R")


def blocking(function: Callable[P, Coroutine[Any, Any, R]]) -> Callable[P, R]:
    """``function`` run to completion with ``asyncio.run``; named without ``_async``."""

    @functools.wraps(function)
    def run(*args: P.args, **kwargs: P.kwargs) -> R:
        return asyncio.run(function(*args, **kwargs))

    run.__name__ = function.__name__.removesuffix("_async")
    run.__qualname__ = function.__qualname__.removesuffix("_async")
    return run
