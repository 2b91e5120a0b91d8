"""The REST API and SSE over the lab, in-process through httpx2's ASGI transport."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import httpx2
from fastapi import FastAPI

from assay.config import Settings, load_settings
from assay.lab import Lab
from assay.store.jsonl import read_jsonl
from assay.web.app import ServerConfig, create_app
from tests.paths import ROOT

TOPIC = "How tall is the Halvorsen Lighthouse?"


def lab_settings(lab: Lab, home: Path) -> Settings:
    return load_settings(
        home=home, search="searxng", searxng_url=lab.sites[0], allow_hosts=["127.0.0.0/8"]
    )


@asynccontextmanager
async def api_client(
    app: FastAPI, headers: dict[str, str] | None = None, host: str = "127.0.0.1"
) -> AsyncIterator[httpx2.AsyncClient]:
    transport = httpx2.ASGITransport(app=app)
    async with httpx2.AsyncClient(
        transport=transport, base_url=f"http://{host}", headers=headers or {}
    ) as client:
        try:
            yield client
        finally:
            await app.state.runs.close()


def run_async(test: Callable[[], Awaitable[None]]) -> None:
    asyncio.run(test())  # type: ignore[arg-type]


async def wait_done(client: httpx2.AsyncClient, run_id: str) -> dict[str, Any]:
    for _ in range(300):
        detail: dict[str, Any] = (await client.get(f"/api/v1/runs/{run_id}")).json()
        if detail["status"] != "running":
            return detail
        await asyncio.sleep(0.1)
    raise AssertionError(f"run {run_id} did not finish")


def sse_events(text: str) -> list[dict[str, Any]]:
    """The records of an SSE body (the closing ``end`` event left out)."""
    records = []
    for block in text.split("\n\n"):
        data = [line[6:] for line in block.split("\n") if line.startswith("data: ")]
        ids = [line for line in block.split("\n") if line.startswith("id: ")]
        if data and ids:
            records.append(json.loads(data[0]))
    return records


def test_a_research_run_from_start_to_verify(lab: Lab, isolated_home: Path) -> None:
    app = create_app(ServerConfig(lab_settings(lab, isolated_home)))

    async def scenario() -> None:
        async with api_client(app) as client:
            started = await client.post("/api/v1/runs", json={"topic": TOPIC})
            assert started.status_code == 202, started.text
            run_id = started.json()["id"]
            assert (isolated_home / "runs" / run_id / "run.json").is_file()
            detail = await wait_done(client, run_id)
            assert detail["status"] == "done" and detail["run"]["protocol"] == "research"
            counts = detail["counts"]["claims"]
            assert sum(counts.values()) >= 1, detail
            status = next(s for s, n in counts.items() if n)
            assert detail["counts"]["sources"] >= 1
            listed = (await client.get("/api/v1/runs")).json()
            assert [r["id"] for r in listed] == [run_id]
            claims = (await client.get(f"/api/v1/runs/{run_id}/claims?status={status}")).json()
            assert len(claims) == counts[status] and all(c["status"] == status for c in claims)
            sources = (await client.get(f"/api/v1/runs/{run_id}/sources")).json()
            snap = await client.get(f"/api/v1/runs/{run_id}/sources/{sources[0]['id']}/snapshot")
            assert snap.headers["content-type"].startswith("text/plain")
            assert snap.headers["x-content-type-options"] == "nosniff"
            assert claims[0]["evidence"][0]["quote"] in "".join(
                [
                    (
                        await client.get(f"/api/v1/runs/{run_id}/sources/{e['sourceId']}/snapshot")
                    ).text
                    for e in claims[0]["evidence"]
                ]
            )
            plan = await client.get(f"/api/v1/runs/{run_id}/plan")
            assert plan.status_code == 200 and "- [" in plan.text
            md = await client.get(f"/api/v1/runs/{run_id}/report?format=md")
            assert md.text.startswith("# ")
            page = await client.get(f"/api/v1/runs/{run_id}/report?format=html")
            assert f'class="cite {status}"' in page.text
            assert f"/runs/{run_id}/snapshots/" in page.text
            data = (await client.get(f"/api/v1/runs/{run_id}/report?format=json")).json()
            assert data["run"]["id"] == run_id
            verified = (await client.post(f"/api/v1/runs/{run_id}/verify")).json()
            assert verified["ok"] is True and verified["failures"] == []
            stream = await client.get(f"/api/v1/runs/{run_id}/events")
            records = sse_events(stream.text)
            log = read_jsonl(isolated_home / "runs" / run_id / "run.log.jsonl").records
            assert [r["seq"] for r in records] == [r["seq"] for r in log]
            later = await client.get(
                f"/api/v1/runs/{run_id}/events", headers={"Last-Event-ID": "5"}
            )
            assert [r["seq"] for r in sse_events(later.text)] == [r["seq"] for r in log[6:]]

    run_async(scenario)


def test_cancel_leaves_a_run_that_resume_finishes(lab: Lab, isolated_home: Path) -> None:
    app = create_app(ServerConfig(lab_settings(lab, isolated_home)))

    async def scenario() -> None:
        async with api_client(app) as client:
            run_id = (await client.post("/api/v1/runs", json={"topic": TOPIC})).json()["id"]
            cancelled = await client.post(f"/api/v1/runs/{run_id}/cancel")
            assert cancelled.status_code == 202
            assert (await wait_done(client, run_id))["status"] == "interrupted"
            again = await client.post(f"/api/v1/runs/{run_id}/cancel")
            assert again.status_code == 409
            resumed = await client.post(f"/api/v1/runs/{run_id}/resume")
            assert resumed.status_code == 202 and resumed.json()["id"] == run_id
            assert (await wait_done(client, run_id))["status"] == "done"

    run_async(scenario)


def test_bad_requests_are_4xx_never_5xx(lab: Lab, isolated_home: Path) -> None:
    app = create_app(ServerConfig(lab_settings(lab, isolated_home), max_runs=1))

    async def scenario() -> None:
        async with api_client(app) as client:
            for path in ("/api/v1/runs/nope", "/api/v1/runs/..%2F..%2Fetc", "/api/v1/runs/%2E%2E"):
                assert (await client.get(path)).status_code == 404, path
            bad = await client.post("/api/v1/runs", json={"topic": "", "protocol": "research"})
            assert bad.status_code == 422
            unknown = await client.post("/api/v1/runs", json={"topic": TOPIC, "model": "nope:x"})
            assert unknown.status_code == 400, unknown.text
            first = await client.post("/api/v1/runs", json={"topic": TOPIC})
            assert first.status_code == 202
            second = await client.post("/api/v1/runs", json={"topic": TOPIC})
            assert second.status_code == 429
            run_id = first.json()["id"]
            missing = await client.get(f"/api/v1/runs/{run_id}/sources/..%2Frun.json/snapshot")
            assert missing.status_code == 404

    run_async(scenario)


def test_an_unknown_search_provider_is_a_400_naming_the_registered_ones(
    isolated_home: Path,
) -> None:
    from assay.gather.search.registry import search_provider_names

    app = create_app(ServerConfig(load_settings(home=isolated_home)))

    async def scenario() -> None:
        async with api_client(app) as client:
            refused = await client.post("/api/v1/runs", json={"topic": TOPIC, "search": "googl"})
            assert refused.status_code == 400, refused.text
            known = ", ".join(search_provider_names())
            assert refused.json()["detail"] == f"unknown search plugin 'googl' (known: {known})"
            listed = await client.get("/api/v1/runs")
            assert listed.json() == []  # refused before a run existed

    run_async(scenario)


def test_a_token_guards_every_request_and_the_host_is_checked(
    lab: Lab, isolated_home: Path
) -> None:
    open_app = create_app(ServerConfig(lab_settings(lab, isolated_home)))
    guarded = create_app(ServerConfig(lab_settings(lab, isolated_home), token="s3cret"))

    async def scenario() -> None:
        async with api_client(open_app, host="evil.example") as client:
            assert (await client.get("/api/v1/runs")).status_code == 421
        async with api_client(open_app) as client:
            assert (await client.get("/api/v1/runs")).status_code == 200
            cross = await client.post(
                "/api/v1/runs", json={"topic": TOPIC}, headers={"origin": "http://evil.example"}
            )
            assert cross.status_code == 403
        async with api_client(guarded, host="assay.example") as client:
            for path in ("/api/v1/runs", "/", "/openapi.json"):
                assert (await client.get(path)).status_code == 401, path
            bearer = {"authorization": "Bearer s3cret"}
            assert (await client.get("/api/v1/runs", headers=bearer)).status_code == 200
            wrong = {"authorization": "Bearer s3cre"}
            assert (await client.get("/api/v1/runs", headers=wrong)).status_code == 401
            login = await client.get("/?token=s3cret")
            assert login.status_code == 303 and login.headers["location"] == "/"
            assert "assay_token=s3cret" in login.headers["set-cookie"]
            with_cookie = await client.get("/", headers={"cookie": "assay_token=s3cret"})
            assert with_cookie.status_code == 200

    run_async(scenario)


def test_the_api_reference_is_generated_from_the_schema() -> None:
    from assay.web.apidocs import api_markdown

    page = (ROOT / "docs" / "api.md").read_text(encoding="utf-8")
    assert page == api_markdown(), "docs/api.md is stale: run `python -m assay.docsgen docs/api.md`"
    for operation in ("POST /api/v1/runs", "GET /api/v1/runs/{run_id}/events", "cancel"):
        assert operation in page
