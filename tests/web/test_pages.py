"""The web UI's pages, in-process: run list, live page, report with hover quotes, claims
filter, snapshot with the quote highlighted, deep directions and the synth matrix."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from assay.lab import Lab
from assay.store.claims import ClaimLedger, ClaimRecord, Evidence
from assay.store.runs import RunStore
from assay.store.sources import SourceLedger
from assay.web.app import ServerConfig, create_app
from tests.report.test_export import claims_data
from tests.web.test_api import TOPIC, api_client, lab_settings, run_async, wait_done

HOSTILE = "<script>alert(1)</script>"


def test_pages_of_a_finished_run(lab: Lab, isolated_home: Path) -> None:
    app = create_app(ServerConfig(lab_settings(lab, isolated_home)))

    async def scenario() -> None:
        async with api_client(app) as client:
            run_id = (await client.post("/api/v1/runs", json={"topic": TOPIC})).json()["id"]
            await wait_done(client, run_id)
            index = await client.get("/")
            assert f'href="/runs/{run_id}"' in index.text and 'id="start-form"' in index.text
            nonce = re.search(
                r"script-src 'nonce-([^']+)'", index.headers["content-security-policy"]
            )
            assert (
                nonce and f'<script nonce="{nonce.group(1)}" src="/static/start.js">' in index.text
            )
            live = await client.get(f"/runs/{run_id}")
            assert 'src="/static/live.js"' in live.text and '"run.finished"' in live.text
            script = await client.get("/static/live.js")
            assert script.status_code == 200 and "EventSource" in script.text
            report = await client.get(f"/runs/{run_id}/report")
            hrefs = [q["href"] for c in claims_data(report.text).values() for q in c["quotes"]]
            pattern = rf"/runs/{run_id}/snapshots/(src_\d+)\?claim=(claim_\d+)&quote=(\d+)"
            links = [re.fullmatch(pattern, href) for href in hrefs]
            assert links and all(links) and 'class="cite ' in report.text
            source_id, claim_id, index_ = links[0].groups()  # type: ignore[union-attr]
            snapshot = await client.get(
                f"/runs/{run_id}/snapshots/{source_id}?claim={claim_id}&quote={index_}"
            )
            claim = next(c for c in ClaimLedger(isolated_home / "runs" / run_id).claims()
                         if c.id == claim_id)  # fmt: skip
            marked = re.search(r'<mark id="quote">(.*?)</mark>', snapshot.text, re.S)
            assert marked and marked.group(1) == claim.evidence[int(index_)].quote
            weak = await client.get(f"/runs/{run_id}/claims?status={claim.status}")
            rows = re.findall(r'<td class="status (\w+)">', weak.text)
            assert rows and set(rows) == {claim.status}
            assert (await client.get("/runs/nope/report")).status_code == 404

    run_async(scenario)


def test_page_text_is_escaped_in_every_page(isolated_home: Path, lab: Lab) -> None:
    run = RunStore(isolated_home, fsync=False).create(HOSTILE, "research", {})
    text = f"Before {HOSTILE} after."
    source = SourceLedger(run.dir, fsync=False).add(
        url="http://site.test/a", final_url="http://site.test/a", title=HOSTILE, text=text,
        content_type="text/html", accessed_at="2026-11-29T10:00:00.000Z",
    )  # fmt: skip
    start = text.index(HOSTILE)
    quote = Evidence(sourceId=source.id, quote=HOSTILE, start=start, end=start + len(HOSTILE))
    ClaimLedger(run.dir, fsync=False).append(
        ClaimRecord(
            id="claim_001",
            text=HOSTILE,
            confidence="high",
            sourceIds=[source.id],
            status="weak",
            evidence=[quote],
        )
    )
    run.write_file("report.md", f"# {HOSTILE}\n\n- {HOSTILE} [1] (claim_001: weak)\n")
    run.finish("done")
    app = create_app(ServerConfig(lab_settings(lab, isolated_home)))

    async def scenario() -> None:
        async with api_client(app) as client:
            snapshot = f"/runs/{run.id}/snapshots/{source.id}?claim=claim_001"
            pages = ("/", f"/runs/{run.id}", f"/runs/{run.id}/report", f"/runs/{run.id}/claims")
            for path in (*pages, snapshot):
                page = await client.get(path)
                assert page.status_code == 200, path
                assert HOSTILE not in page.text, path
            snap = await client.get(f"/runs/{run.id}/snapshots/{source.id}?claim=claim_001")
            assert '<mark id="quote">&lt;script&gt;alert(1)&lt;/script&gt;</mark>' in snap.text

    run_async(scenario)


def with_local_index(home: Path, corpus: Path) -> None:
    """The lab corpus as the home's local index: a second configured search provider, so
    synth's default roster has the two searchers its pre-flight asks for."""
    from assay.gather.index import LocalIndex

    with LocalIndex(home / "index.sqlite") as index:
        index.add_paths(sorted(corpus.iterdir()))


@pytest.mark.parametrize("protocol", ["deep", "synth"])
def test_deep_and_synth_runs_start_from_the_api_and_show_their_tables(
    lab: Lab, lab_corpus_dir: Path, isolated_home: Path, protocol: str
) -> None:
    with_local_index(isolated_home, lab_corpus_dir)
    app = create_app(ServerConfig(lab_settings(lab, isolated_home)))
    body = {"topic": TOPIC, "protocol": protocol, "max_directions": 1}

    async def scenario() -> None:
        async with api_client(app) as client:
            started = await client.post("/api/v1/runs", json=body)
            assert started.status_code == 202, started.text
            run_id = started.json()["id"]
            detail = await wait_done(client, run_id)
            assert detail["run"]["protocol"] == protocol
            assert detail["status"] == "done", detail["run"]["reason"]
            page = (await client.get(f"/runs/{run_id}")).text
            if protocol == "deep":
                assert '<table id="directions">' in page
            else:  # its output file is one of its own, next to the others' (not a folder)
                assert [p.suffix for p in (isolated_home / "synth-output").iterdir()] == [".md"]

    run_async(scenario)


def test_a_synth_run_page_shows_its_verdict_matrix(isolated_home: Path, lab: Lab) -> None:
    run = RunStore(isolated_home, fsync=False).create("Matrix topic", "synth", {})
    run.write_file(
        "report.md",
        "# Matrix topic\n\n### Gemini Fact-Check of Codex\n\n| # | claim | verdict |\n"
        "|---|---|---|\n| 1 | a | VERIFIED |\n| 2 | b | FALSE |\n| 3 | c | VERIFIED |\n",
    )
    run.finish("done")
    app = create_app(ServerConfig(lab_settings(lab, isolated_home)))

    async def scenario() -> None:
        async with api_client(app) as client:
            page = (await client.get(f"/runs/{run.id}")).text
            row = re.search(r'<td>Gemini → Codex</td>\s*((?:<td class="num">\d+</td>)+)', page)
            assert row and re.findall(r"\d+", row.group(1)) == ["2", "1", "0"]

    run_async(scenario)
