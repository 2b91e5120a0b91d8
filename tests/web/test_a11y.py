"""Accessibility: axe-core (vendored in tests/data/axe, no network) over every page of the
web UI in headless Chromium, light and dark, at both sizes' widths: no serious or critical
violation."""

from __future__ import annotations

from typing import Any

import pytest

from tests.paths import TESTS
from tests.web_ui_fixtures import (
    Served,
    needs_chromium,
    new_page,
)

pytestmark = [pytest.mark.browser, pytest.mark.slow, needs_chromium]
AXE = (TESTS / "data" / "axe" / "axe.min.js").read_text(encoding="utf-8")
BLOCKING = ("serious", "critical")


def _pages(runs: Served) -> dict[str, str]:
    research, deep, synth = (runs.runs[p] for p in ("research", "deep", "synth"))
    from assay.store.sources import SourceLedger

    source = SourceLedger(runs.home / "runs" / research).records()[0].id
    return {
        "home": "/",
        "live research": f"/runs/{research}",
        "live deep": f"/runs/{deep}",
        "live synth": f"/runs/{synth}",
        "report": f"/runs/{research}/report",
        "claims": f"/runs/{research}/claims",
        "snapshot": f"/runs/{research}/snapshots/{source}?claim=claim_001&quote=0",
        "settings": "/settings",
        "history": "/history",
        "compare": f"/compare?a={research}&b={deep}",
    }


def _violations(page: Any) -> list[str]:
    page.evaluate(AXE)  # through the DevTools protocol: the page's CSP does not apply
    result = page.evaluate("axe.run(document, {resultTypes: ['violations']})")
    return [
        f"{v['id']} ({v['impact']}): {v['help']} — "
        + "; ".join(n["target"][0] if n["target"] else "?" for n in v["nodes"][:4])
        for v in result["violations"]
        if v["impact"] in BLOCKING
    ]


@pytest.mark.parametrize(("size", "scheme"), [("desktop", "light"), ("phone", "dark")])
def test_no_serious_or_critical_violation_on_any_page(
    finished: Served,
    chromium: Any,
    size: str,
    scheme: str,
) -> None:
    page = new_page(chromium, size=size, scheme=scheme)
    found = {}
    for name, path in _pages(finished).items():
        page.goto(finished.base + path)
        if name.startswith("live"):
            page.wait_for_selector("body[data-ended=yes]")
            page.wait_for_selector("#report-live article.report")
        found[name] = _violations(page)
    page.context.close()
    assert not any(found.values()), {k: v for k, v in found.items() if v}


def test_a_running_runs_live_page_has_none_either(served: Served, chromium: Any) -> None:
    run_id = served.start({"topic": "How tall is the Halvorsen Lighthouse?", "protocol": "deep",
                           "max_directions": 2})  # fmt: skip
    page = new_page(chromium)
    page.goto(f"{served.base}/runs/{run_id}")
    page.wait_for_selector("#searches li")
    assert _violations(page) == []
    page.wait_for_selector("body[data-ended=yes]", timeout=60_000)
    page.context.close()
