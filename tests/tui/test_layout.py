"""The TUI in an 80x24 terminal: a footer whose keys fit, a help that fits or scrolls."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.containers import VerticalScroll
from textual.geometry import Size
from textual.widget import Widget
from textual.widgets import Markdown

from assay.tui import AssayApp
from tests.conftest import make_run


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def new_app(home: Path) -> AssayApp:
    app = AssayApp(home, poll_interval=0.05)
    app.animation_level = "none"
    return app


@pytest.mark.anyio
async def test_every_footer_key_is_shown_whole_at_80_columns(isolated_home: Path) -> None:
    make_run(isolated_home)
    app = new_app(isolated_home)
    async with app.run_test(size=(80, 24)) as pilot:
        keys: list[Widget] = []
        for _ in range(40):  # on a loaded machine the footer may take a few refreshes
            await pilot.pause(0.05)
            keys = list(app.screen.query("FooterKey"))
            if keys and all(key.region.width for key in keys):
                break
        shown = {str(getattr(key, "description", "")) for key in keys}
        assert {"quit", "runs", "new run", "help", "panes"} <= shown
        for key in keys:
            region = key.region
            whole = key.get_content_width(Size(80, 24), Size(80, 24))
            assert region.right <= 80 and region.width >= whole, (shown, region, whole)


@pytest.mark.anyio
@pytest.mark.parametrize(("rows", "scrolls"), [(24, False), (14, True)])
async def test_help_fits_24_rows_and_scrolls_when_shorter(
    isolated_home: Path, rows: int, scrolls: bool
) -> None:
    app = new_app(isolated_home)
    async with app.run_test(size=(80, rows)) as pilot:
        await pilot.pause()
        await pilot.press("question_mark")
        await pilot.pause()
        box = app.screen.query_one("#help", VerticalScroll)
        assert app.screen.query_one(Markdown).region.height > 0
        assert (box.max_scroll_y > 0) is scrolls
        await pilot.press("end")
        await pilot.pause()
        assert box.scroll_y == box.max_scroll_y  # the last line ("quit ...") can be reached
        await pilot.press("escape")
        await pilot.pause()
        assert not app.screen.query("#help")
