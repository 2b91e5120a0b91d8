"""The web-research flow over the web lab: skipped sources, the minimum of 3 sources,
one-source output, no fetcher, and the depth counts (3 / 5 / 7 sources)."""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from typer.testing import CliRunner

from assay.cli import app
from assay.config import load_settings
from assay.errors import BadInputError, ConfigError
from assay.gather.reader import ReadSource
from assay.lab import Lab
from assay.protocols.web_research import (
    NEEDS_SOURCES,
    NO_FETCHER,
    WebResearchRequest,
    web_research,
)
from assay.protocols.web_research.collect import collect
from assay.protocols.web_research.results import SourceFindings
from assay.store.jsonl import read_jsonl
from assay.store.sources import SourceRecord


def _lab_options(lab: Lab) -> dict[str, object]:
    return {"search": "searxng", "searxng_url": lab.sites[0], "allow_hosts": ["127.0.0.0/8"]}


def _pages(lab: Lab, count: int, topic: str = "Halvorsen Lighthouse") -> list[str]:
    """``count`` pages on the topic, on as many different sites as the lab dealt them to."""
    urls = [url for url, doc in lab.pages if topic in doc.title]
    by_site = sorted(urls, key=lambda u: (sum(v[:25] == u[:25] for v in urls[: urls.index(u)]), u))
    return by_site[:count]


def test_skipped_sources_are_warnings_and_the_minimum_is_reported(lab: Lab) -> None:
    first, second = _pages(lab, 2)
    private = lab.sites[1] + "/private/" + first.rsplit("/", 1)[1]
    wrong_type = lab.sites[2] + "/fault/wrong-type"
    urls = [first, private, second, wrong_type]
    result = web_research("Halvorsen Lighthouse", urls=urls, depth="medium", **_lab_options(lab))
    assert result.status == "done" and len(result.sources_used) == 2
    assert [(s.url, s.reason) for s in result.sources_skipped] == [
        (private, "disallowed by robots.txt"),
        (wrong_type, "content type application/octet-stream is not fetched"),
    ]
    output = str(result.output)
    assert f"- WARN: `{private}` skipped: disallowed by robots.txt" in output
    assert f"- WARN: `{wrong_type}` skipped: content type" in output
    assert "minimum not met: 2 usable source(s); web research needs at least 3 sources" in output
    assert any(w.startswith("minimum not met") for w in result.warnings)
    events = read_jsonl(result.run_dir / "run.log.jsonl").records
    types = [e["type"] for e in events]
    assert types.count("source.skipped") == 2 and types[-1] == "run.finished"
    # each source's claims are appended right after it is read, before verification starts
    created = [i for i, t in enumerate(types) if t == "claim.created"]
    opened = [i for i, t in enumerate(types) if t == "tool.open_url"]
    assert created and opened[0] < created[0] < types.index("claim.verified")


def test_one_source_is_flagged_as_a_whole_report_from_one_source(lab: Lab) -> None:
    result = web_research(
        "Halvorsen Lighthouse", urls=_pages(lab, 1), output_format="report", **_lab_options(lab)
    )
    output = str(result.output)
    assert "the whole synthesis rests on one source" in output
    assert "minimum not met: 1 usable source(s)" in output
    assert "Confidence: low" in output


def test_no_fetcher_is_the_spec_message_and_no_run_is_made(
    isolated_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ASSAY_FETCH__ENABLED", "false")
    settings = load_settings()
    assert not settings.fetch.enabled
    with pytest.raises(ConfigError) as caught:
        web_research("ferries", urls=["https://example.org/"], settings=settings)
    assert str(caught.value) == NO_FETCHER
    with pytest.raises(ConfigError):
        web_research("ferries", keywords=["ferry"], settings=settings, search="searxng")
    assert not (isolated_home / "runs").exists()


def test_bad_requests_raise_the_spec_message() -> None:
    for topic, urls, keywords in (
        ("", ["http://a.test"], None),
        ("t", None, None),
        ("t", [], [" "]),
    ):
        with pytest.raises(BadInputError) as caught:
            WebResearchRequest.build(topic, urls, keywords, "medium", "summary")
        assert str(caught.value) == NEEDS_SOURCES
    with pytest.raises(TypeError, match="serch"):  # typed keywords: mypy catches it too
        web_research("t", urls=["http://a.test"], serch="typo")  # type: ignore[call-arg]


@dataclass
class _Outcome:
    results: list[object] = field(default_factory=list)
    errors: dict[str, str] = field(default_factory=dict)


class _Provider:
    name = "fake"


class FakeSession:
    """Reads succeed at once except for the urls in ``failing`` (no network)."""

    def __init__(self, failing: set[str]) -> None:
        self.failing = failing
        self.read_urls: list[str] = []
        self.provider = _Provider()

    async def search(self, queries: list[str]) -> _Outcome:
        return _Outcome()

    async def read(self, url: str) -> ReadSource | None:
        self.read_urls.append(url)
        if url in self.failing:
            return None
        number = len(self.read_urls)
        record = SourceRecord(
            id=f"src_{number:02d}",
            url=url,
            final_url=url,
            title=url,
            snapshot=f"snapshots/{number}.md",
            accessed_at="2026-11-29T00:00:00.000Z",
            sha256="0" * 64,
            domain="a.test",
            content_type="text/html",
        )
        return ReadSource(record, "text", 1, False, False)


@pytest.mark.parametrize(
    ("depth", "expected", "reads"), [("shallow", 3, 4), ("medium", 5, 7), ("deep", 7, 9)]
)
def test_depth_counts_usable_sources(depth: str, expected: int, reads: int) -> None:
    urls = [f"http://a.test/{n}" for n in range(10)]
    failing = {urls[2], urls[5]}
    session = FakeSession(failing)
    request = WebResearchRequest.build("topic", urls, None, depth, "summary")

    async def process(read: ReadSource) -> SourceFindings:
        return SourceFindings(read.record)

    reasons = {url: "refused" for url in failing}
    collected = asyncio.run(collect(session, request, process, reasons))  # type: ignore[arg-type]
    assert len(collected.findings) == expected == request.target
    assert len(session.read_urls) == reads  # each wave reads only what is still missing
    assert [s.reason for s in collected.skipped] == ["refused"] * (
        len(session.read_urls) - expected
    )
    assert (
        f"{10 - reads} given URL(s) not read: depth {depth} uses {expected} sources"
        in json.dumps(collected.warnings)
    )


def test_a_budget_that_runs_out_leaves_a_partial_report(
    lab: Lab, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ASSAY_BUDGET_FETCHES", "1")
    urls = _pages(lab, 3)
    args = ["web-research", "Halvorsen Lighthouse", "--json", "--search", "brave"]  # no key
    args += ["--allow-host", "127.0.0.0/8", *(a for url in urls for a in ("--url", url))]
    invoked = CliRunner().invoke(app, args)
    assert invoked.exit_code == 3, invoked.output
    shown = json.loads(invoked.stdout)
    assert shown["status"] == "partial" and "fetch budget of 1" in shown["reason"]
    assert "Partial report" in shown["output"]
    assert len(shown["sources"]) == 1 and shown["warnings"][-1].startswith("partial: ")
    info = json.loads((Path(shown["run_dir"]) / "run.json").read_text())
    assert info["status"] == "done" and info["reason"].startswith("partial: ")


def test_a_user_error_inside_the_run_is_recorded(isolated_home: Path) -> None:
    with pytest.raises(ConfigError, match="searxng"):
        web_research("ferries", keywords=["ferry"], search="searxng")  # no searxng_url
    (run_dir,) = (isolated_home / "runs").iterdir()
    info = json.loads((run_dir / "run.json").read_text())
    assert info["status"] == "failed" and "searxng" in info["reason"]
    types = [e["type"] for e in read_jsonl(run_dir / "run.log.jsonl").records]
    assert types[-2:] == ["error", "run.finished"]


@pytest.mark.parametrize("args", [["Some topic"], [], ["--url", "http://a.test/"]])
def test_the_cli_names_the_flags_that_give_a_topic_and_sources(args: list[str]) -> None:
    from typer.testing import CliRunner

    from assay.cli import app

    result = CliRunner().invoke(app, ["web-research", *args])
    assert result.exit_code == 2
    assert result.output.strip() == (
        f"error: {NEEDS_SOURCES}: give a TOPIC and at least one --url URL or --keyword QUERY "
        "(both repeatable)"
    )
