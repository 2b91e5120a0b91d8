"""The runner owns the end of every run: failed with a reason, a deadline kept, a resume hint."""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

import assay.gather.session as session_module
import assay.protocols.deep.worker as deep_worker
import assay.protocols.runner as runner_module
from assay.cli.app import app
from assay.cli.lab import _search_flags
from assay.config import Settings, load_settings
from assay.errors import ProviderError
from assay.gather.search.base import SearchProvider, SearchResult, TimeRange
from assay.gather.search.registry import build_search_provider
from assay.gather.search.searxng import SearxngSearch
from assay.gather.search.web_search import MAX_QUERY_CHARS, normalise_queries
from assay.keys import KeyStore
from assay.lab import Lab
from assay.models import Model
from assay.models.base import Request
from assay.models.testing import ScriptedModel
from assay.protocols.searchwatch import SearchWatch
from assay.protocols.web_research import WebResearchRequest, run_web_research

TOPIC = "How tall is the Halvorsen Lighthouse?"


def _runs(home: Path) -> list[dict[str, Any]]:
    return [json.loads(p.read_text()) for p in sorted(home.glob("runs/*/run.json"))]


def _lab_args(lab: Lab) -> list[str]:
    return ["--search", "searxng", "--searxng-url", lab.sites[0], "--allow-host", "127.0.0.0/8"]


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["research", "?!"], "topic is empty"),  # no words; a blank one starts no run
        (["research", TOPIC, "--search", "brave"], "BRAVE_API_KEY"),
        (["research", TOPIC, "--model", "nosuch:model"], "nosuch"),
    ],
)
def test_a_user_error_mid_run_ends_the_run_failed(
    isolated_home: Path, args: list[str], said: str
) -> None:
    result = CliRunner().invoke(app, [*args, "--quiet"])
    assert result.exit_code == 2, result.output
    assert said in result.output
    [info] = _runs(isolated_home)
    assert info["status"] == "failed" and said in info["reason"]


def test_a_workspace_symlink_out_of_it_fails_the_run_not_hangs_it(
    isolated_home: Path, tmp_path: Path
) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text("the widget cache holds 40 entries\n")
    workspace = tmp_path / "ws"
    workspace.mkdir()
    (workspace / "notes.md").write_text("# Notes\n\nThe widget cache is small.\n")
    (workspace / "file.txt").symlink_to(outside / "secret.txt")
    result = CliRunner().invoke(
        app, ["research", "widget cache entries", "--workspace", str(workspace), "--quiet"]
    )
    assert result.exit_code == 2, result.output
    assert "outside the workspace" in result.output and "40 entries" not in result.output
    [info] = _runs(isolated_home)
    assert info["status"] == "failed" and "outside the workspace" in info["reason"]


def test_no_search_succeeded_fails_the_run_with_the_fix(isolated_home: Path) -> None:
    result = CliRunner().invoke(app, ["research", TOPIC, "--quiet"])  # a home without an index
    assert result.exit_code == 1, result.output
    assert "no search succeeded" in result.output and "assay index add" in result.output
    [info] = _runs(isolated_home)
    assert info["status"] == "failed" and "no search succeeded" in info["reason"]


def test_a_dead_searxng_port_fails_the_run(isolated_home: Path) -> None:
    args = [
        "--search",
        "searxng",
        "--searxng-url",
        "http://127.0.0.1:9",
        "--allow-host",
        "127.0.0.1",
    ]
    result = CliRunner().invoke(app, ["research", TOPIC, *args, "--quiet"])
    assert result.exit_code == 1, result.output
    assert "--searxng-url" in result.output


def test_the_search_url_the_lab_prints_is_accepted(lab: Lab) -> None:
    assert SearxngSearch(http=None, base_url=lab.search_url).endpoint == lab.search_url  # type: ignore[arg-type]
    assert SearxngSearch(http=None, base_url=lab.sites[0] + "/").endpoint == lab.search_url  # type: ignore[arg-type]


class _HalfBroken:
    """Fails the first query of every search and answers the others from the lab."""

    name = "searxng"

    def __init__(self, inner: SearchProvider) -> None:
        self.inner = inner
        self.calls = 0

    async def search(
        self, queries: list[str], *, max_results: int, time_range: TimeRange | None = None
    ) -> list[SearchResult]:
        self.calls += 1
        if self.calls == 1:
            raise ProviderError("searxng: HTTP 502 from the instance")
        return await self.inner.search(queries, max_results=max_results, time_range=time_range)


def test_partial_search_failure_is_a_warning_on_stderr(
    lab: Lab, monkeypatch: pytest.MonkeyPatch
) -> None:
    def half_broken(settings: Settings, **kwargs: Any) -> SearchProvider:
        return _HalfBroken(build_search_provider(settings, **kwargs))

    monkeypatch.setattr(session_module, "build_search_provider", half_broken)
    result = CliRunner().invoke(app, ["research", TOPIC, *_lab_args(lab), "--quiet"])
    assert result.exit_code == 0, result.output
    assert "warning: 1 of" in result.output and "HTTP 502" in result.output


def test_search_watch_counts_queries() -> None:
    from assay.events import ToolSearch

    watch = SearchWatch()
    watch(ToolSearch(queries=["a", "b"], result_count=1, errors={"a": "x"}))
    assert watch.failure() is None and watch.warning() is not None
    failing = SearchWatch()
    failing(ToolSearch(queries=["a"], result_count=0, errors={"a": "boom"}))
    assert "boom" in str(failing.failure())


def test_a_time_budget_is_a_deadline(lab: Lab, isolated_home: Path) -> None:
    settings = load_settings(home=isolated_home, allow_hosts=["127.0.0.0/8"], budget_time=1.5)
    slow_page = f"{lab.sites[0]}/fault/slow?seconds=6&case=budget"  # 6 s before it answers
    request = WebResearchRequest.build("a slow page", [slow_page], [], "shallow", "summary")
    started = time.monotonic()
    result = asyncio.run(run_web_research(request, settings))
    overshoot = time.monotonic() - started - 1.5
    assert overshoot < 1.0, f"ran {overshoot:.2f} s past its time budget"  # was 4.5+ s
    assert result.status == "partial" and "time budget" in (result.reason or "")
    [info] = _runs(isolated_home)
    assert info["status"] == "done" and info["reason"].startswith("partial: time budget")


def test_ctrl_c_names_the_run_and_how_to_resume(
    isolated_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def interrupting(request: Request) -> object:
        raise KeyboardInterrupt

    def scripted(settings: Settings, keys: KeyStore) -> Model:
        return ScriptedModel(interrupting)

    monkeypatch.setattr(runner_module, "model_from_settings", scripted)
    result = CliRunner().invoke(app, ["research", TOPIC, "--quiet"])
    [info] = _runs(isolated_home)
    assert result.exit_code == 130
    assert f"resume with: assay resume {info['id']}" in result.output
    assert info["status"] == "interrupted"


class _Closing(ScriptedModel):
    closed = 0

    async def aclose(self) -> None:
        type(self).closed += 1


def test_the_runner_closes_the_model_it_built(
    isolated_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(runner_module, "model_from_settings", lambda settings, keys: _Closing([]))
    CliRunner().invoke(app, ["research", TOPIC, "--quiet"])
    assert _Closing.closed == 1


def test_a_ten_thousand_character_topic_is_condensed_into_queries() -> None:
    topic = " ".join(f"word{i}" for i in range(1500))
    queries = normalise_queries([topic, f"{topic} history", f"{topic} criticism"])
    assert len(queries) == 3 and all(len(q) <= MAX_QUERY_CHARS for q in queries)
    assert queries[1].endswith("history") and queries[2].endswith("criticism")


def test_the_lab_prints_the_exact_flags_to_pass(lab: Lab) -> None:
    flags = _search_flags(lab.sites[0]).split()
    assert flags == ["--search", "searxng", "--searxng-url", lab.sites[0],
                     "--allow-host", "127.0.0.0/8"]  # fmt: skip


def test_a_deep_run_whose_every_worker_crashed_fails(
    lab: Lab, isolated_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    async def crashing(self: deep_worker.Worker, task: deep_worker.WorkerTask) -> None:
        raise RuntimeError("boom in every worker")

    monkeypatch.setattr(deep_worker.Worker, "run", crashing)
    result = CliRunner().invoke(
        app, ["deep", TOPIC, "--max-directions", "2", "--output", str(tmp_path), *_lab_args(lab)]
    )
    assert result.exit_code == 1, result.output
    assert "every worker crashed" in result.output and "boom in every worker" in result.output
    [info] = _runs(isolated_home)
    assert info["status"] == "failed"
