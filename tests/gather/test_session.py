"""webSearch and readUrl end to end: the searxng provider and the real fetcher over the lab."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from assay.config import FetchSettings, Settings, load_settings
from assay.gather.index import Document, LocalIndex
from assay.gather.session import INDEX_FILE, GatherSession
from assay.keys import KeyStore
from assay.lab import Lab
from assay.store.jsonl import read_jsonl
from assay.store.runs import Run, RunStore
from assay.store.sources import text_sha256


def _settings(lab: Lab, **fetch: object) -> Settings:
    settings = load_settings(
        search="searxng", searxng_url=lab.sites[0], allow_hosts=["127.0.0.0/8"]
    )
    if fetch:
        settings = settings.model_copy(update={"fetch": FetchSettings(**fetch)})  # type: ignore[arg-type]
    return settings


def _run(settings: Settings) -> Run:
    return RunStore(settings.home, fsync=False).create("lab topic", "test", settings.snapshot())


def _events(run: Run) -> list[dict[str, object]]:
    return read_jsonl(run.dir / "run.log.jsonl").records


def test_search_then_read_records_snapshots_sources_and_events(lab: Lab) -> None:
    settings = _settings(lab)
    run = _run(settings)

    async def go() -> None:
        async with GatherSession(run, settings, keys=KeyStore(settings.home)) as session:
            first_page_doc = lab.pages[0][1]
            words = first_page_doc.title.split()
            outcome = await session.search(
                [first_page_doc.title, words[0], "history of " + words[-1]]
            )
            assert outcome.result_count > 0
            shape = outcome.to_json()
            assert set(shape[0]) == {"query", "results"}
            assert set(shape[0]["results"][0]) == {"title", "url", "snippet", "publishedDate"}
            url = shape[0]["results"][0]["url"]
            read = await session.read(url)
            assert read is not None
            again = await session.read(url)  # a URL already read is not fetched again
            assert again is not None and again.record == read.record

    asyncio.run(go())
    sources = read_jsonl(run.dir / "sources.jsonl").records
    assert len(sources) == 1
    record = sources[0]
    assert set(record) == {
        "id",
        "url",
        "final_url",
        "title",
        "snapshot",
        "accessed_at",
        "sha256",
        "domain",
        "content_type",
        "reliability",
    }
    assert record["id"] == "src_01" and record["content_type"] == "text/html"
    assert record["reliability"] == "unknown"  # a lab host no pattern covers
    snapshot = (run.dir / record["snapshot"]).read_text()
    header, text = snapshot.split("\n---\n\n", 1)
    assert json.loads(header.split("url: ", 1)[1].splitlines()[0]) == record["url"]
    assert text_sha256(text) == record["sha256"]
    assert "Copyright" not in text  # the footer is boilerplate, not source text
    types = [e["type"] for e in _events(run)]
    assert types == ["tool.search", "tool.open_url"]
    search_event = _events(run)[0]["data"]
    assert search_event["provider"] == "searxng" and search_event["resultCount"] > 0


def test_failed_sources_are_skipped_with_a_reason(lab: Lab) -> None:
    settings = _settings(lab)
    run = _run(settings)
    site = lab.sites[1]

    async def go() -> list[object]:
        async with GatherSession(run, settings, keys=KeyStore(settings.home)) as session:
            return [
                await session.read(f"{site}/private/anything"),
                await session.read(f"{site}/fault/wrong-type"),
                await session.read("ftp://example.invalid/file"),
            ]

    assert asyncio.run(go()) == [None, None, None]
    skipped = [e["data"] for e in _events(run) if e["type"] == "source.skipped"]
    reasons = [str(s["reason"]) for s in skipped]
    assert len(skipped) == 3
    assert "robots.txt" in reasons[0]
    assert "content type" in reasons[1] or "application/octet-stream" in reasons[1]
    assert "scheme" in reasons[2]
    assert not (run.dir / "sources.jsonl").exists()


def test_token_caps_truncate_and_warn(lab: Lab) -> None:
    settings = _settings(lab, source_token_cap=100, run_token_cap=150)
    run = _run(settings)
    urls = [url for url, _ in lab.pages[:3]]

    async def go() -> None:
        async with GatherSession(run, settings, keys=KeyStore(settings.home)) as session:
            for url in urls:
                read = await session.read(url)
                assert read is not None and read.tokens <= 100

    asyncio.run(go())
    warnings = [e["data"] for e in _events(run) if e["type"] == "warning"]
    codes = [w["code"] for w in warnings]
    assert "source_token_cap" in codes
    assert "run_token_cap" in codes
    evicted = next(w for w in warnings if w["code"] == "run_token_cap")
    assert "src_01" in str(evicted["message"])
    assert len(read_jsonl(run.dir / "sources.jsonl").records) == 3  # nothing lost on disk


def test_index_urls_are_read_from_the_local_index(isolated_home: Path) -> None:
    with LocalIndex(isolated_home / INDEX_FILE) as index:
        index.add_documents(
            [Document(doc_id="abc123", title="Notes", text="The local note says 7 things.")]
        )
    settings = load_settings(search="local")
    run = _run(settings)

    async def go() -> None:
        async with GatherSession(run, settings, keys=KeyStore(settings.home)) as session:
            outcome = await session.search(["local note", "things", "notes"])
            url = outcome.results[0].url
            assert url == "index://abc123"
            read = await session.read(url)
            assert read is not None and "7 things" in read.text
            assert await session.read("index://missing") is None

    asyncio.run(go())
    record = read_jsonl(run.dir / "sources.jsonl").records[0]
    assert record["url"] == "index://abc123" and record["title"] == "Notes"
