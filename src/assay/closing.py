"""Closing that a cancellation cannot cut short.

Why: a run is cancelled with ``Task.cancel`` (the web server's cancel button, asyncio's
time budget, asyncio.run ending), and that cancellation can land while the run is closing
its HTTP clients. httpcore closes a pool's connections one after the other under anyio's
``CancelScope(shield=True)``, which stops anyio's own cancellations but not asyncio's: the
CancelledError ends the loop at the first connection and the pool, already emptied, forgets
the rest, whose sockets are then only closed by the garbage collector (a ResourceWarning).
``close_fully`` runs the closing in a task of its own and waits for its end whatever
arrives meanwhile, then lets the cancellation go on.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable


async def close_fully(close: Callable[[], Awaitable[None]]) -> None:
    """Await ``close()`` to its end even when this task is cancelled meanwhile; a
    cancellation that arrived is raised once the closing is done."""
    closing = asyncio.ensure_future(close())
    interrupted: asyncio.CancelledError | None = None
    while not closing.done():
        try:
            await asyncio.shield(closing)
        except asyncio.CancelledError as exc:
            interrupted = exc
    if interrupted is not None:
        raise interrupted
    closing.result()  # the closing's own error, if it failed
