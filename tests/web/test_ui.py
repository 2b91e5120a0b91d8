"""The web UI's pages in-process: a start form that offers only what can run, re-running a
run with its options, the settings page (masked, read-only through a public name), the
history's filters and comparison, and that nothing is loaded from another origin."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from assay.config import load_settings
from assay.protocols.served import ServedChoices
from assay.store.runs import RunStore
from assay.web.app import ServerConfig, create_app
from tests.web.test_api import api_client, run_async

SECRET = "sk-test-a-secret-that-must-never-show-0123"


def _option(page: str, value: str) -> str:
    found = re.search(rf'<option value="{re.escape(value)}"([^>]*)>([^<]*)</option>', page)
    assert found, value
    return found.group(1) + "|" + found.group(2)


def _radio(page: str, protocol: str) -> str:
    found = re.search(rf'<input type="radio" name="protocol" id="protocol-{protocol}"[^>]*>', page)
    assert found, protocol
    return found.group(0)


def test_the_form_offers_only_what_can_run(
    isolated_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings = load_settings(home=isolated_home, search="searxng", searxng_url="http://127.0.0.1:9")
    offered = ServedChoices.offered(settings, searches=["brave"])
    app = create_app(ServerConfig(settings, choices=offered))

    async def page() -> str:
        async with api_client(app) as client:
            return (await client.get("/")).text

    before = run_async_value(page)
    assert _option(before, "brave") == " disabled|brave — needs BRAVE_API_KEY"
    assert "not offered by this server (assay serve --allow-search tavily)" in _option(
        before, "tavily"
    )
    assert _option(before, "").startswith("|searxng (default)")
    assert " disabled" in _radio(before, "synth") and "needs two set-up search providers" in before
    assert " disabled" not in _radio(before, "research")
    monkeypatch.setenv("BRAVE_API_KEY", SECRET)
    after = run_async_value(page)
    assert _option(after, "brave") == "|brave"
    assert " disabled" not in _radio(after, "synth")  # searxng and brave: two searchers
    assert SECRET not in after


def run_async_value(make: object) -> str:
    import asyncio

    result: str = asyncio.run(make())  # type: ignore[operator]
    return result


def test_run_again_fills_the_form_with_the_runs_question_and_options(isolated_home: Path) -> None:
    settings = load_settings(home=isolated_home)
    config = {**settings.snapshot(), "exclude_domains": ["example.com"], "budget_time": 120.0}
    run = RunStore(isolated_home, fsync=False).create("Where is Skarvik Island?", "deep", config)
    run.info.max_directions = 2  # type: ignore[attr-defined]
    run.save_info()
    run.finish("done")
    app = create_app(ServerConfig(settings))

    async def page() -> str:
        async with api_client(app) as client:
            return (await client.get(f"/?again={run.id}")).text

    text = run_async_value(page)
    assert (
        ">Where is Skarvik Island?</textarea>" in text and "Run again, with other settings" in text
    )
    assert " checked" in _radio(text, "deep")
    assert (
        'id="max_directions" name="max_directions" type="number" min="1" max="5" value="2"' in text
    )
    assert 'value="example.com"' in text and 'value="2.0"' in text  # 120 s: 2 minutes
    assert '<details class="more" id="more" open>' in text


def test_settings_show_keys_masked_and_change_only_from_loopback(
    isolated_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TAVILY_API_KEY", SECRET)
    settings = load_settings(home=isolated_home, allow_hosts=["127.0.0.0/8"])
    app = create_app(ServerConfig(settings, public_names=frozenset({"assay.example"})))

    async def scenario() -> None:
        async with api_client(app) as client:
            page = (await client.get("/settings")).text
            assert SECRET not in page and str(isolated_home) not in page
            row = re.search(r'<li data-key="TAVILY_API_KEY">.*?</li>', page, re.S)
            assert row and "present" in row.group(0) and "environment" in row.group(0)
            assert "<code>127.0.0.0/8</code>" in page and "$ASSAY_HOME" in page
            stored = await client.put("/api/v1/keys/BRAVE_API_KEY", json={"value": "b" * 24})
            assert stored.status_code == 204, stored.text
            keys = json.loads((isolated_home / "keys.json").read_text())
            assert keys == {"BRAVE_API_KEY": "b" * 24}
            unknown = await client.put("/api/v1/keys/PATH", json={"value": "x"})
            assert unknown.status_code == 400 and "not a key assay reads" in unknown.text
        async with api_client(app, host="assay.example") as public:
            page = (await public.get("/settings")).text
            assert "Read-only" in page and 'class="key-form"' not in page
            refused = await public.delete("/api/v1/keys/BRAVE_API_KEY")
            assert refused.status_code == 403 and refused.json()["kind"] == "NotAllowed"
            assert "BRAVE_API_KEY" in (isolated_home / "keys.json").read_text()

    run_async(scenario)


def _runs(home: Path) -> list[str]:
    store = RunStore(home, fsync=False)
    made = []
    for topic, protocol, status, search in (
        ("How tall is the Halvorsen Lighthouse?", "research", "done", "searxng"),
        ("When did the Tarn Valley tidal plant open?", "ask", "failed", "local"),
        ("How tall is the lighthouse on Skarvik?", "deep", "done", "local"),
    ):
        run = store.create(topic, protocol, {"search": search})
        run.finish(status)  # type: ignore[arg-type]
        made.append(run.id)
    return made


def test_history_filters_by_question_protocol_status_and_date(isolated_home: Path) -> None:
    ids = _runs(isolated_home)
    app = create_app(ServerConfig(load_settings(home=isolated_home)))

    async def shown(query: str) -> list[str]:
        async with api_client(app) as client:
            page = (await client.get(f"/history{query}")).text
        return re.findall(r'<tr data-run="([^"]+)">', page)

    def listed(query: str) -> list[str]:
        import asyncio

        return asyncio.run(shown(query))

    assert listed("") == ids[::-1]
    assert listed("?q=LIGHTHOUSE") == [ids[2], ids[0]]
    assert listed("?protocol=ask") == [ids[1]]
    assert listed("?status=done&q=halvorsen") == [ids[0]]
    assert listed("?since=2999-01-01") == []
    assert listed("?until=2999-01-01&protocol=deep") == [ids[2]]


def test_two_runs_side_by_side_name_the_settings_that_differ(isolated_home: Path) -> None:
    first, second, _third = _runs(isolated_home)
    app = create_app(ServerConfig(load_settings(home=isolated_home)))

    async def scenario() -> None:
        async with api_client(app) as client:
            page = (await client.get(f"/compare?a={first}&b={second}")).text
            assert f'data-run="{first}"' in page and f'data-run="{second}"' in page
            row = re.search(r'<tr class="differs"><td><code>search</code>.*?</tr>', page, re.S)
            assert row and "searxng" in row.group(0) and "local" in row.group(0)
            assert '<tr class="differs"><td><code>model</code>' not in page
            assert (await client.get(f"/compare?a={first}&b=nope")).status_code == 404

    run_async(scenario)


def test_no_page_loads_anything_from_another_origin(
    isolated_home: Path, lab_research_run: Path
) -> None:
    target = isolated_home / "runs" / lab_research_run.name
    shutil.copytree(lab_research_run, target)
    app = create_app(ServerConfig(load_settings(home=isolated_home)))
    run_id = lab_research_run.name

    async def scenario() -> None:
        async with api_client(app) as client:
            for path in ("/", "/history", "/settings", f"/runs/{run_id}",
                         f"/runs/{run_id}/report", f"/runs/{run_id}/claims"):  # fmt: skip
                page = await client.get(path)
                assert page.status_code == 200, path
                loaded = re.findall(r'<(?:script|link|img)[^>]+(?:src|href)="([^"]+)"', page.text)
                assert loaded and all(u.startswith("/static/") for u in loaded), (path, loaded)
                for asset in loaded:
                    assert (await client.get(asset)).status_code == 200, asset
                assert "style-src 'self'" in page.headers["content-security-policy"]

    run_async(scenario)
