"""The web UI in headless Chromium over the lab: every protocol started from the form, its
live page updating without a reload (claims with their text and statuses changed in
place, progress, the answer, deep's directions, synth's matrix), the report's hover
quote and PDF export, a refused provider shown in the form, keyboard-only use, and
screenshots of each page at two sizes in both themes."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from assay.lab import Lab
from tests.web_ui_fixtures import (
    TOPIC,
    Served,
    needs_chromium,
    new_page,
    screenshot,
)

pytestmark = [pytest.mark.browser, pytest.mark.slow, needs_chromium]

# What the page showed over time, recorded from its first script on (a MutationObserver
# installed before the page's own scripts run), and a marker a reload would lose.
WATCH = """
window.__seen = {status: [], progress: [], firstClaim: null};
window.__notReloaded = true;
document.addEventListener('DOMContentLoaded', function () {
  new MutationObserver(function () {
    var seen = window.__seen, chip = document.getElementById('run-status');
    var bar = document.getElementById('overall');
    var last = seen.status[seen.status.length - 1];
    if (chip && last !== chip.textContent) seen.status.push(chip.textContent);
    if (bar) seen.progress.push(Number(bar.getAttribute('aria-valuenow')));
    if (!seen.firstClaim) {
      var li = document.querySelector('#claims li');
      if (li) {
        seen.firstClaim = li;
        seen.firstClaimStatus = li.querySelector('.chip').textContent;
      }
    }
  }).observe(document.body,
             {subtree: true, childList: true, characterData: true, attributes: true});
});
"""


CLAIMS_FILLED = """(() => {
  const texts = Array.from(document.querySelectorAll('#claims li .text'));
  return texts.length > 0 && !texts.some((t) => t.textContent === 'Reading…');
})()"""


def _start_from_form(page: Any, base: str, protocol: str) -> str:
    page.goto(f"{base}/")
    page.fill("#topic", TOPIC)
    page.check(f"#protocol-{protocol}")
    if protocol == "web-research":
        page.fill("#keywords", "Halvorsen Lighthouse")
    if protocol == "deep":
        page.fill("#max_directions", "2")
    page.click("#start")
    page.wait_for_url(re.compile(r".*/runs/[a-z0-9-]+$"))
    return str(page.url.rsplit("/", 1)[1])


@pytest.mark.parametrize("protocol", ["research", "ask", "web-research", "deep", "synth"])
def test_each_protocol_from_the_form_live(
    served: Served,
    chromium: Any,
    protocol: str,
) -> None:
    page = new_page(chromium)
    page.context.add_init_script(WATCH)
    run_id = _start_from_form(page, served.base, protocol)
    if protocol == "deep":  # the page mid-run, for the artefacts
        page.wait_for_selector("#directions tbody tr")
        screenshot(page, "live-deep-running")
    page.wait_for_selector("body[data-ended=yes]", timeout=60_000)
    page.wait_for_function(CLAIMS_FILLED)
    seen = page.evaluate("window.__seen")
    assert page.evaluate("window.__notReloaded === true")  # one page load from start to end
    assert page.inner_text("#run-status") == "done"
    if protocol in ("research", "deep", "synth"):  # long enough to be watched working
        assert seen["status"][0] == "running", seen["status"]
        assert any(0 < p < 100 for p in seen["progress"]), seen["progress"]
    assert page.get_attribute("#overall", "aria-valuenow") == "100"
    assert page.locator("#pages li").count() >= 1 and page.locator("#searches li").count() >= 1
    texts = page.locator("#claims li .text").all_inner_texts()
    assert texts and all(len(t) > 10 for t in texts)
    chips = page.locator("#claims li .chip").all_inner_texts()
    assert set(chips) - {"unverified"}, chips  # statuses arrived
    if seen.get("firstClaimStatus") == "unverified":  # the same element, updated in place
        assert page.evaluate("window.__seen.firstClaim.isConnected")
        assert page.evaluate("window.__seen.firstClaim.querySelector('.chip').textContent") != (
            "unverified"
        )
    page.locator("#claims li").first.hover()
    assert page.locator("#claims li .quote").first.is_visible()
    assert "\u201c" in page.locator("#claims li .quote").first.inner_text()
    page.wait_for_selector("#report-live article.report")
    if protocol in ("research", "ask"):
        assert page.locator("#answer-card").is_visible()
        assert "41 metres" in page.inner_text("#answer-text")
    if protocol == "deep":
        rows = page.locator("#directions tbody tr")
        assert rows.count() == 2
        assert re.match(r"\d+\.\d", rows.first.locator("td").nth(2).inner_text())
    if protocol == "synth":
        rows = page.locator("#matrix tbody tr")
        assert rows.count() == 2
        counts = [int(c) for c in rows.locator("td.num").all_inner_texts()]
        assert sum(counts) > 0
    screenshot(page, f"live-{protocol}-after")
    page.context.close()
    assert served.wait(run_id)["status"] == "done"


def test_the_report_shows_the_quote_on_hover_and_exports_a_pdf(
    finished: Served,
    chromium: Any,
) -> None:
    page = new_page(chromium, accept_downloads=True)
    page.goto(f"{finished.base}/runs/{finished.runs['research']}/report")
    assert "41 metres" in page.inner_text("#answer")
    assert page.locator("#sources li").count() >= 1
    cite = page.locator(".answer-card button.cite").first
    cite.hover()
    popover = page.locator("#quote-pop")
    popover.wait_for(state="visible")
    assert "41 metres" in popover.locator("blockquote").first.inner_text()
    with page.expect_download() as download:
        page.click("#export-pdf")
    path = download.value.path()
    assert path is not None and Path(path).read_bytes()[:5] == b"%PDF-"
    page.context.close()


def test_an_unknown_provider_is_refused_with_its_message_in_the_form(
    served: Served,
    chromium: Any,
) -> None:
    page = new_page(chromium)
    page.goto(f"{served.base}/")
    page.fill("#topic", TOPIC)
    # a form from before the server changed: an option it no longer knows
    page.evaluate("var o = document.createElement('option'); o.value = o.textContent = 'googl';"
                  "document.getElementById('search').appendChild(o);")  # fmt: skip
    page.select_option("#search", "googl")
    with page.expect_response(re.compile(r".*/api/v1/runs$")) as answer:
        page.click("#start")
    assert answer.value.status == 400
    error = page.locator("#start-error")
    error.wait_for(state="visible")
    assert "unknown search plugin 'googl'" in error.inner_text() and "searxng" in error.inner_text()
    assert page.url == f"{served.base}/"
    assert page.get_attribute("#search", "aria-invalid") == "true"
    screenshot(page, "home-refused-desktop-light")
    page.context.close()


def test_the_form_and_the_report_work_from_the_keyboard(
    finished: Served,
    chromium: Any,
) -> None:
    page = new_page(chromium)
    page.goto(f"{finished.base}/")
    page.keyboard.press("Tab")  # the skip link
    assert page.evaluate("document.activeElement.className") == "skip"
    page.keyboard.press("Enter")
    for _ in range(8):  # from the main content to the question
        page.keyboard.press("Tab")
        if page.evaluate("document.activeElement.id") == "topic":
            break
    assert page.evaluate("document.activeElement.id") == "topic"
    page.keyboard.type(TOPIC)
    page.focus("#protocol-research")
    page.keyboard.press("ArrowRight")  # radio groups move with the arrow keys
    assert page.is_checked("#protocol-ask")
    page.focus("#start")
    page.keyboard.press("Enter")
    page.wait_for_url(re.compile(r".*/runs/[a-z0-9-]+$"))
    page.wait_for_selector("body[data-ended=yes]", timeout=60_000)
    page.goto(f"{finished.base}/runs/{finished.runs['research']}/report")
    for _ in range(40):
        page.keyboard.press("Tab")
        if page.evaluate("document.activeElement.classList.contains('cite')"):
            break
    assert page.evaluate("document.activeElement.classList.contains('cite')")
    page.keyboard.press("Enter")
    page.locator("#quote-pop").wait_for(state="visible")
    page.context.close()


PAGES = ("home", "live", "report", "settings", "history")


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("size", ["desktop", "phone"])
def test_screenshots_of_every_page(
    finished: Served,
    chromium: Any,
    size: str,
    scheme: str,
) -> None:
    run_id = finished.runs["research"]
    paths = {"home": "/", "live": f"/runs/{run_id}", "report": f"/runs/{run_id}/report",
             "settings": "/settings", "history": "/history"}  # fmt: skip
    page = new_page(chromium, size=size, scheme=scheme)
    for name in PAGES:
        page.goto(finished.base + paths[name])
        if name == "live":
            page.wait_for_selector("body[data-ended=yes]")
            page.wait_for_selector("#report-live article.report")
        width = page.evaluate("document.documentElement.scrollWidth")
        assert width <= page.viewport_size["width"], (name, width)  # no sideways scrolling
        theme = page.evaluate("getComputedStyle(document.body).backgroundColor")
        assert (theme == "rgb(16, 19, 23)") == (scheme == "dark"), (name, theme)
        screenshot(page, f"{name}-{size}-{scheme}")
    page.click("#theme-toggle")  # the toggle overrides the system's scheme, and is kept
    flipped = "light" if scheme == "dark" else "dark"
    assert page.evaluate("document.documentElement.dataset.theme") == flipped
    page.goto(finished.base + "/")
    assert page.evaluate("document.documentElement.dataset.theme") == flipped
    page.context.close()


def test_cancel_then_resume_from_the_live_page(
    lab: Lab,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    chromium: Any,
) -> None:
    # A server of its own with no fetch cache: the module's server has every lab page
    # cached by now, and a deep run over cached pages can end before the page loads.
    from assay.config import load_settings
    from assay.web.app import ServerConfig, create_app
    from assay.web.testing import serve_in_thread
    from tests.conftest import _isolate

    _isolate(tmp_path, monkeypatch)
    settings = load_settings(home=tmp_path, search="searxng", searxng_url=lab.sites[0],
                             allow_hosts=["127.0.0.0/8"], fetch={"cache_ttl": 0})  # fmt: skip
    with serve_in_thread(create_app(ServerConfig(settings))) as base:
        _cancel_then_resume(Served(base, tmp_path), chromium)


def _cancel_then_resume(served: Served, chromium: Any) -> None:
    page = new_page(chromium)
    for _ in range(3):  # on a loaded machine a run may end before its page is up: a new one
        run_id = served.start({"topic": TOPIC, "protocol": "deep", "max_directions": 2})
        page.goto(f"{served.base}/runs/{run_id}")
        page.wait_for_function(
            "() => !document.getElementById('cancel').hidden"
            " || document.getElementById('run-status').textContent !== 'running'"
        )
        if page.locator("#cancel").is_visible():
            break
    page.click("#cancel")
    page.wait_for_function(
        "() => document.getElementById('run-status').textContent === 'interrupted'"
    )
    assert page.locator("#cancel").is_hidden() and page.locator("#resume").is_visible()
    page.click("#resume")
    page.wait_for_function("() => document.getElementById('run-status').textContent === 'running'")
    page.wait_for_function(
        "() => document.getElementById('run-status').textContent === 'done'", timeout=60_000
    )
    seqs = page.eval_on_selector_all("#timeline .event", "els => els.map(e => e.dataset.seq)")
    assert len(seqs) == len(set(seqs))  # the resumed stream went on after what it had
    assert served.wait(run_id)["status"] == "done"
    page.context.close()


def test_a_preset_fills_the_form_and_its_budget_shows_on_the_live_page(
    served: Served,
    chromium: Any,
) -> None:
    page = new_page(chromium)
    page.goto(f"{served.base}/")
    page.fill("#topic", TOPIC)
    page.click("button[data-preset=thorough]")
    assert page.is_checked("#protocol-research") and page.input_value("#sources") == "12"
    assert page.input_value("#budget_time") == "15" and page.is_visible("#budget_time")
    assert page.get_attribute("button[data-preset=thorough]", "aria-pressed") == "true"
    page.click("#start")
    page.wait_for_url(re.compile(r".*/runs/[a-z0-9-]+$"))
    budget = page.locator("#budgets li").first
    assert re.fullmatch(r"time: \d+ s of 15 min 0 s budget", budget.inner_text())
    page.wait_for_selector("body[data-ended=yes]", timeout=60_000)
    page.context.close()
