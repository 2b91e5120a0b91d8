"""The web UI in real headless Chromium (Debian's package, driven by Playwright through
``executable_path``; nothing downloads a browser): start a run from the form against the
lab, watch the live page receive its events, hover a citation in the report to see its
quote, and open the snapshot with the quote highlighted. Screenshots of each page go to
test-artefacts/browser/ (or $ASSAY_TEST_ARTEFACTS)."""

from __future__ import annotations

import os
import re
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from assay.lab import Lab
from assay.web.app import ServerConfig, create_app
from assay.web.testing import serve_in_thread
from tests.paths import ROOT
from tests.web.test_api import TOPIC, lab_settings

CHROMIUM = os.environ.get("ASSAY_CHROMIUM") or shutil.which("chromium")
pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(CHROMIUM is None, reason="needs Debian's chromium package"),
]
ARTEFACTS = Path(os.environ.get("ASSAY_TEST_ARTEFACTS") or ROOT / "test-artefacts") / "browser"


@pytest.fixture(scope="module")
def browser(lab_research_run: Path) -> Iterator[Any]:
    """One Chromium for the module. While Playwright's sync API is open no asyncio.run can
    start on this thread, so the shared lab run (made with one) is made first."""
    playwright_api = pytest.importorskip("playwright.sync_api")
    with playwright_api.sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        try:
            yield launched
        finally:
            launched.close()


@pytest.fixture
def browser_page(browser: Any) -> Iterator[Any]:
    """A fresh page in a fresh context (no cookies or cache from another test)."""
    context = browser.new_context(viewport={"width": 1100, "height": 900})
    page = context.new_page()
    page.set_default_timeout(20_000)
    try:
        yield page
    finally:
        context.close()


def test_start_watch_report_hover_and_snapshot(
    lab: Lab, isolated_home: Path, browser_page: Any
) -> None:
    ARTEFACTS.mkdir(parents=True, exist_ok=True)
    page = browser_page
    app = create_app(ServerConfig(lab_settings(lab, isolated_home)))
    with serve_in_thread(app) as base:
        page.goto(f"{base}/")
        page.fill("#topic", TOPIC)
        page.check("#protocol-research")
        page.screenshot(path=str(ARTEFACTS / "1-start-form.png"))
        page.click("#start")
        page.wait_for_url(re.compile(r".*/runs/[a-z0-9-]+$"))
        run_id = page.url.rsplit("/", 1)[1]
        assert page.inner_text("#run-status") == "running"  # the page opened mid-run
        page.wait_for_selector("body[data-ended=yes]")
        assert page.inner_text("#run-status") == "done"  # told by the stream
        assert page.locator("#timeline .event").count() >= 10
        assert page.locator("#pages li").count() >= 1
        assert page.locator("#claims li").count() >= 1
        page.screenshot(path=str(ARTEFACTS / "2-live-run.png"), full_page=True)

        page.goto(f"{base}/runs/{run_id}/report")
        citation = page.locator("button.cite").first
        citation.hover()
        popover = page.locator("#quote-pop")
        popover.wait_for(state="visible")
        quote = popover.locator("blockquote").first.inner_text().strip("\u201c\u201d")
        assert len(quote) > 10 and citation.get_attribute("data-claim") in popover.inner_text()
        page.screenshot(path=str(ARTEFACTS / "3-report-hover.png"))

        popover.locator("a.snapshot").first.click()
        page.wait_for_url(re.compile(r".*/snapshots/src_\d+\?claim=claim_\d+&quote=\d+$"))
        mark = page.locator("mark#quote")
        assert mark.is_visible()
        assert " ".join(mark.inner_text().split()) == quote
        page.screenshot(path=str(ARTEFACTS / "4-snapshot.png"))


@pytest.fixture
def exported_report(lab_research_run: Path, tmp_path: Path) -> Path:
    """The shared lab run exported as HTML (made before the browser's event loop starts)."""
    from assay.report.export import export_bytes
    from assay.store.runs import RunStore

    run = RunStore(lab_research_run.parents[1]).open(lab_research_run.name)
    target = tmp_path / "report.html"
    target.write_bytes(export_bytes(run, "html"))
    return target


def test_the_exported_page_works_offline(exported_report: Path, browser_page: Any) -> None:
    """The exported HTML opened from a file: hover a citation, open its snapshot in the
    page with the quote highlighted; nothing is requested from anywhere."""
    ARTEFACTS.mkdir(parents=True, exist_ok=True)
    page = browser_page
    requests: list[str] = []
    page.on("request", lambda request: requests.append(request.url))
    page.goto(exported_report.as_uri())
    page.locator("button.cite").last.hover()
    popover = page.locator("#quote-pop")
    popover.wait_for(state="visible")
    quote = popover.locator("blockquote").first.inner_text().strip("\u201c\u201d")
    popover.locator("a.snapshot").first.click()
    mark = page.locator("#snapshot-view mark#quote")
    mark.wait_for(state="visible")
    assert " ".join(mark.inner_text().split()) == quote
    page.screenshot(path=str(ARTEFACTS / "5-export-offline-snapshot.png"))
    assert requests == [exported_report.as_uri()]
