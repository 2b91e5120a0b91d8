"""The web form's source controls in real headless Chromium: a bad domain is refused by
the server with its reason shown under the form; good ones start a run that keeps them."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest

from assay.lab import Lab
from assay.web.app import ServerConfig, create_app
from assay.web.testing import serve_in_thread
from tests.web.test_api import TOPIC, lab_settings
from tests.web.test_browser import CHROMIUM, browser, browser_page  # noqa: F401 - fixtures

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(CHROMIUM is None, reason="needs Debian's chromium package"),
]


def test_the_form_sends_domains_and_dates_and_shows_the_servers_refusal(
    lab: Lab,
    isolated_home: Path,
    browser_page: Any,  # noqa: F811 - the fixture
) -> None:
    page = browser_page
    excluded = urlsplit(lab.sites[1]).hostname or ""
    app = create_app(ServerConfig(lab_settings(lab, isolated_home)))
    with serve_in_thread(app) as base:
        page.goto(f"{base}/")
        page.fill("#topic", TOPIC)
        page.click("#more > summary")
        page.fill("#exclude_domains", "example.com a..b")
        page.click("#start")
        error = page.locator("#start-error")
        page.wait_for_selector("#start-error:not(:empty)")
        assert "not a domain name" in error.inner_text()
        page.fill("#exclude_domains", f"{excluded}, www.example.com")
        page.fill("#since", "2020-01-01")
        page.click("#start")
        page.wait_for_url(re.compile(r".*/runs/[a-z0-9-]+$"))
        page.wait_for_selector("body[data-ended=yes]")
    [run] = list((isolated_home / "runs").iterdir())
    config = json.loads((run / "run.json").read_text())["config"]
    assert config["exclude_domains"] == [excluded, "example.com"]
    assert config["since"] == "2020-01-01"


def test_the_form_sends_the_language_it_offers(
    lab: Lab,
    isolated_home: Path,
    browser_page: Any,  # noqa: F811 - the fixture
) -> None:
    page = browser_page
    app = create_app(ServerConfig(lab_settings(lab, isolated_home)))
    with serve_in_thread(app) as base:
        page.goto(f"{base}/")
        page.fill("#topic", TOPIC)
        page.click("#more > summary")  # the language is with the sources and dates
        page.select_option("#language", "de")
        page.click("#start")
        page.wait_for_url(re.compile(r".*/runs/[a-z0-9-]+$"))
        page.wait_for_selector("body[data-ended=yes]")
    [run] = list((isolated_home / "runs").iterdir())
    info = json.loads((run / "run.json").read_text())
    assert info["config"]["language"] == "de" and info["language"] == "de"
    assert "## Zusammenfassung" in (run / "report.md").read_text()
