"""The source-control flags through every interface: the CLI, the REST API and the web
form (validated by the server), and a research run over the lab with an excluded domain
that never fetches from it (sources.jsonl and the lab's own request log)."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
from typer.testing import CliRunner

from assay.cli import app
from assay.lab import Lab
from assay.web.app import ServerConfig, create_app
from tests.web.test_api import TOPIC, api_client, lab_settings, run_async, wait_done


def _runs(home: Path) -> list[Path]:
    return sorted((home / "runs").iterdir()) if (home / "runs").exists() else []


def _lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def _fetched_hosts(run: Path) -> set[str]:
    return {urlsplit(s["final_url"]).hostname or "" for s in _lines(run / "sources.jsonl")}


@pytest.fixture
def excluded_site(lab_research_run: Path, lab: Lab) -> str:
    """A lab site the run without a rule fetched from: the one the exclusion tests refuse
    (which site a run reads first is the reading order's business, not these tests')."""
    fetched = _fetched_hosts(lab_research_run)
    assert len(fetched) >= 2  # excluding one still leaves the run a page to read
    # not sites[0]: the run's search engine, which it must still ask
    return next(site for site in lab.sites[1:] if urlsplit(site).hostname in fetched)


def _lab_args(lab: Lab) -> list[str]:
    return ["--search", "searxng", "--searxng-url", lab.sites[0], "--allow-host", "127.0.0.0/8"]


def test_without_a_rule_the_lab_run_reads_the_site_the_next_test_excludes(
    lab_research_run: Path, excluded_site: str
) -> None:
    excluded = urlsplit(excluded_site).hostname
    assert excluded in _fetched_hosts(lab_research_run)  # else the next test proves nothing
    kinds = {source["reliability"] for source in _lines(lab_research_run / "sources.jsonl")}
    assert kinds == {"unknown"}  # lab hosts are no known domain


def test_a_cli_run_with_exclude_domain_never_fetches_that_domain(
    lab: Lab, isolated_home: Path, excluded_site: str
) -> None:
    excluded = urlsplit(excluded_site).hostname or ""
    before = len(lab.hits())
    args = ["research", TOPIC, *_lab_args(lab), "--exclude-domain", excluded, "--quiet"]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    [run] = _runs(isolated_home)
    hosts = _fetched_hosts(run)
    assert hosts and excluded not in hosts
    assert excluded_site not in {site for site, _, _ in lab.hits()[before:]}  # not even robots
    config = json.loads((run / "run.json").read_text())["config"]
    assert config["exclude_domains"] == [excluded]
    offered = [
        r["url"]
        for record in _lines(run / "run.log.jsonl")
        if record["type"] == "tool.search"
        for r in record["data"].get("results") or []
    ]
    assert offered and not any(urlsplit(u).hostname == excluded for u in offered)


def test_since_asks_the_provider_for_a_window_and_warns_once_about_undated_results(
    lab: Lab, isolated_home: Path
) -> None:
    since = (datetime.now(UTC).date() - timedelta(days=20)).isoformat()
    before = len(lab.hits())
    result = CliRunner().invoke(app, ["ask", TOPIC, *_lab_args(lab), "--since", since, "-q"])
    assert result.exit_code == 0, result.output
    searches = [target for _, target, _ in lab.hits()[before:] if target.startswith("/search")]
    assert searches and all("time_range=month" in target for target in searches)
    [run] = _runs(isolated_home)
    warnings = [r["data"] for r in _lines(run / "run.log.jsonl") if r["type"] == "warning"]
    assert [w["code"] for w in warnings].count("undated_results") == 1  # lab pages have no date


@pytest.mark.parametrize(
    ("flags", "said"),
    [
        (["--exclude-domain", "not a domain"], "is not a domain name"),
        (["--include-domain", "a..b"], "is not a domain name"),
        (["--since", "2024-02-30"], "invalid setting since"),
        (["--since", "2025-01-01", "--until", "2024-01-01"], "is after until"),
    ],
)
def test_bad_source_flags_are_one_line_errors(
    flags: list[str], said: str, isolated_home: Path
) -> None:
    result = CliRunner().invoke(app, ["research", TOPIC, *flags, "--quiet"])
    assert result.exit_code == 2, result.output
    assert said in result.output and "Traceback" not in result.output
    assert _runs(isolated_home) == []  # refused before a run began


def test_the_api_validates_and_applies_source_controls(
    lab: Lab, isolated_home: Path, excluded_site: str
) -> None:
    excluded = urlsplit(excluded_site).hostname or ""
    app_ = create_app(ServerConfig(lab_settings(lab, isolated_home)))
    before = len(lab.hits())

    async def scenario() -> None:
        async with api_client(app_) as client:
            for bad in (
                {"exclude_domains": ["not a domain"]},
                {"include_domains": ["-x.com"]},
                {"since": "2024-13-01"},
                {"since": "2025-01-01", "until": "2024-01-01"},
                {"exclude_domains": "example.com"},  # a list, not a string
            ):
                refused = await client.post("/api/v1/runs", json={"topic": TOPIC, **bad})
                assert refused.status_code == 422, (bad, refused.text)
            body: dict[str, Any] = {"topic": TOPIC, "exclude_domains": [f"www.{excluded}"]}
            started = await client.post("/api/v1/runs", json=body)
            assert started.status_code == 202, started.text
            detail = await wait_done(client, started.json()["id"])
            assert detail["status"] == "done", detail

    run_async(scenario)
    [run] = _runs(isolated_home)
    assert excluded not in _fetched_hosts(run)
    assert excluded_site not in {site for site, _, _ in lab.hits()[before:]}
    assert json.loads((run / "run.json").read_text())["config"]["exclude_domains"] == [excluded]


def test_a_request_narrows_the_servers_controls_never_widens_them(isolated_home: Path) -> None:
    from assay.config import load_settings
    from assay.errors import BadInputError
    from assay.protocols.launch import StartRun
    from assay.protocols.served import ServedChoices

    base = load_settings(
        home=isolated_home, include_domains=["gov"], exclude_domains=["cdc.gov"],
        since="2024-01-01",
    )  # fmt: skip
    offered = ServedChoices.offered(base)

    def served(**fields: Any) -> Any:
        return offered.resolve(StartRun(topic="t", **fields), base).settings

    narrowed = served(
        include_domains=["nasa.gov"], exclude_domains=["x.nasa.gov"], since="2020-01-01"
    )
    assert narrowed.include_domains == ["nasa.gov"]
    assert narrowed.exclude_domains == ["cdc.gov", "x.nasa.gov"]  # the server's stays
    assert str(narrowed.since) == "2024-01-01"  # the later of the two
    with pytest.raises(BadInputError, match="outside this server's"):
        served(include_domains=["example.com"])
    with pytest.raises(BadInputError, match="is after until"):
        served(until="2023-01-01")


def test_the_web_form_sends_the_controls_the_server_validates(
    lab: Lab, isolated_home: Path
) -> None:
    app_ = create_app(ServerConfig(lab_settings(lab, isolated_home)))

    async def scenario() -> None:
        async with api_client(app_) as client:
            page = (await client.get("/")).text
            for name in ("include_domains", "exclude_domains"):
                assert f'name="{name}"' in page
            assert 'name="since" type="date"' in page and 'name="until" type="date"' in page
            script = (await client.get("/static/start.js")).text
            assert "split(/[\\s,]+/)" in script  # a list of domains, as the API takes it

    run_async(scenario)
