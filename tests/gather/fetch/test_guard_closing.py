"""A guarded client closes every pooled connection, even when its task is cancelled while
it closes (httpcore's own closing stops at the first connection then: ``assay.closing``)."""

from __future__ import annotations

import asyncio
import gc

import pytest

from assay.config import FetchSettings
from assay.gather.fetch import Fetcher
from assay.lab import Lab
from tests.lab_fixtures import connections_left


def test_a_cancel_while_the_fetcher_closes_leaves_no_connection_open(
    own_lab: Lab, unraisable: list[str]
) -> None:
    async def scenario() -> None:
        fetcher = Fetcher(FetchSettings(retries=0), allow_hosts=["127.0.0.0/8"])
        for site in own_lab.site_pages:  # one keep-alive connection a site
            await fetcher.fetch(site[0].url)
        assert own_lab.open_connections() == len(own_lab.sites)
        closing = asyncio.create_task(fetcher.aclose())
        await asyncio.sleep(0)  # the closing starts and waits on its first connection
        closing.cancel()
        with pytest.raises(asyncio.CancelledError):
            await closing
        assert closing.cancelled()  # the cancellation goes on once the closing is done

    asyncio.run(scenario())
    assert connections_left(own_lab) == 0  # not left for the garbage collector to close
    gc.collect()
    assert unraisable == []
