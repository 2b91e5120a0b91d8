"""close_fully: a closing runs to its end whatever cancellation arrives meanwhile."""

from __future__ import annotations

import asyncio

import pytest

from assay.closing import close_fully


def test_a_cancelled_closing_ends_then_the_cancellation_goes_on() -> None:
    steps: list[str] = []

    async def close() -> None:
        for step in ("first", "second", "third"):
            await asyncio.sleep(0.01)
            steps.append(step)

    async def scenario() -> None:
        task = asyncio.create_task(close_fully(close))
        for _ in range(2):  # twice: a second cancel does not cut it short either
            await asyncio.sleep(0.005)
            task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(scenario())
    assert steps == ["first", "second", "third"]


def test_a_closing_without_a_cancel_returns_and_its_error_is_raised() -> None:
    async def failing() -> None:
        raise OSError("the socket was gone")

    async def fine() -> None:
        await asyncio.sleep(0)

    asyncio.run(close_fully(fine))
    with pytest.raises(OSError, match="gone"):
        asyncio.run(close_fully(failing))
