"""`assay verify` over a real lab run and tampered copies of it: every quiet edit is caught
and named, whatever the status of the claim it touches; an untouched run passes."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from assay.cli import app
from assay.models import registry
from assay.models.testing import ScriptedModel

runner = CliRunner()
FALSE_TEXT = "The Eiffel Tower is a concrete pyramid in Berlin, Germany."


@pytest.fixture
def run_copy(lab_research_run: Path, isolated_home: Path) -> Path:
    """A fresh copy of the shared lab run in this test's home, to tamper with."""
    target = isolated_home / "runs" / lab_research_run.name
    shutil.copytree(lab_research_run, target)
    return target


def lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def write_lines(path: Path, records: list[dict[str, Any]]) -> None:
    path.write_text("".join(json.dumps(r) + "\n" for r in records))


def verify(run_dir: Path, *extra: str) -> tuple[int, str]:
    result = runner.invoke(app, ["verify", run_dir.name, *extra])
    assert "Traceback" not in result.output
    return result.exit_code, " ".join(result.output.split())


def test_the_untouched_lab_run_passes_and_is_chained(run_copy: Path) -> None:
    claims = lines(run_copy / "claims.jsonl")
    assert claims and all(c["status"] == "weak" for c in claims)  # one origin: weak, the
    # status the tampering below must not be able to hide behind
    code, output = verify(run_copy)
    assert code == 0, output
    chained = {(e["kind"], e["id"]) for e in lines(run_copy / "chain.jsonl")}
    wanted = {("source", s["id"]) for s in lines(run_copy / "sources.jsonl")}
    wanted |= {("claim", c["id"]) for c in claims} | {("file", "report.md")}
    assert wanted <= chained
    payload = json.loads(runner.invoke(app, ["verify", run_copy.name, "--json"]).output)
    assert payload["ok"] is True and payload["failures"] == [] and payload["warnings"] == []
    first = payload["claims"][0]
    assert {"id", "recorded", "presented", "rederived", "reason", "failed"} <= set(first)
    assert (first["recorded"], first["presented"], first["rederived"]) == ("weak",) * 3


def test_rejudge_passes_claims_their_quotes_support(run_copy: Path) -> None:
    code, output = verify(run_copy, "--rejudge")
    assert code == 0, output


def test_an_edited_snapshot_fails(run_copy: Path) -> None:
    source = lines(run_copy / "sources.jsonl")[2]
    snapshot = run_copy / source["snapshot"]
    snapshot.write_text(snapshot.read_text().replace("1874", "1875"))
    code, output = verify(run_copy)
    assert code == 4
    assert f"{source['id']}: snapshot {source['snapshot']} was altered" in output


def test_a_relabelled_source_presented_as_verified_fails_and_is_named(run_copy: Path) -> None:
    sources = lines(run_copy / "sources.jsonl")
    relabelled = sources[2]
    old_url = relabelled["url"]
    new_url = "https://independent-press.example.org/halvorsen"
    relabelled.update(domain="independent-press.example.org", url=new_url, final_url=new_url)
    write_lines(run_copy / "sources.jsonl", sources)
    claims = lines(run_copy / "claims.jsonl")
    claims[0]["status"] = "verified"
    write_lines(run_copy / "claims.jsonl", claims)
    report = run_copy / "report.md"
    report.write_text(
        report.read_text()
        .replace("(claim_001: weak)", "(claim_001: verified)")
        .replace(old_url, new_url)
    )
    code, output = verify(run_copy)
    assert code == 4
    assert (
        f"source {relabelled['id']} was edited in sources.jsonl: url, final_url, domain changed"
        in output
    )
    assert "claim_001: claims.jsonl says verified, but it re-derives as weak" in output


def test_rejudge_catches_an_edited_claim_text_without_a_chain(run_copy: Path) -> None:
    """Even with the chain gone (an older run), the quotes do not say what the text says."""
    (run_copy / "chain.jsonl").unlink()
    info = json.loads((run_copy / "run.json").read_text())
    info["hash_chain"] = False
    (run_copy / "run.json").write_text(json.dumps(info))
    write_lines(run_copy / "claims.jsonl", _edit_text(lines(run_copy / "claims.jsonl")))
    assert verify(run_copy)[0] == 0  # the quotes hold; only a judge can read the text
    code, output = verify(run_copy, "--rejudge")
    assert code == 4
    assert "claim_001: its quote from src_01 does not support its text" in output
    assert "Eiffel" in output


def test_an_edited_report_sentence_fails(run_copy: Path) -> None:
    report = run_copy / "report.md"
    text = report.read_text()
    edited = text.replace("completed in 1874", "completed in 1784", 1)
    assert edited != text
    report.write_text(edited)
    code, output = verify(run_copy)
    assert code == 4
    assert "report.md was edited after assay wrote it" in output


def _tamper_weak_quote(claims: list[dict[str, Any]]) -> list[dict[str, Any]]:
    evidence = claims[1]["evidence"][0]
    evidence["quote"] = evidence["quote"].replace("northern", "southern")
    return claims


def _edit_text(claims: list[dict[str, Any]]) -> list[dict[str, Any]]:
    claims[0]["text"] = FALSE_TEXT
    return claims


def _remove_third_line(claims: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return claims[:2] + claims[3:]


def _cite_unfetched_source(claims: list[dict[str, Any]]) -> list[dict[str, Any]]:
    claims[2]["sourceIds"].append("src_99")
    return claims


@pytest.mark.parametrize(
    ("edit", "expected"),
    [
        (
            _tamper_weak_quote,
            [
                "claim_002: quotes_located: evidence 0: quote not found at",
                "claim_002: claims.jsonl says weak, but it re-derives as needs_review",
            ],
        ),
        (_edit_text, ["claim claim_001 was edited in claims.jsonl: text changed"]),
        (
            _remove_third_line,
            ["claim claim_003 is in chain.jsonl but missing from claims.jsonl (a removed line)"],
        ),
        (_cite_unfetched_source, ["claim_003: sources_exist: cites unknown source src_99"]),
    ],
    ids=["weak-quote", "claim-text", "removed-line", "unfetched-source"],
)
def test_an_edited_claims_file_fails_and_names_the_claim(
    run_copy: Path,
    edit: Callable[[list[dict[str, Any]]], list[dict[str, Any]]],
    expected: list[str],
) -> None:
    path = run_copy / "claims.jsonl"
    write_lines(path, edit(lines(path)))
    code, output = verify(run_copy)
    assert code == 4
    for failure in expected:
        assert failure in output


def test_an_edited_or_deleted_chain_fails(run_copy: Path) -> None:
    chain = run_copy / "chain.jsonl"
    entries = lines(chain)
    first_source = next(e for e in entries if e["kind"] == "source")
    first_source["parts"]["url"] = "0" * 64
    write_lines(chain, entries)
    code, output = verify(run_copy)
    assert code == 4
    assert f"chain.jsonl entry {first_source['seq']} (source src_01) was edited" in output
    chain.unlink()
    code, output = verify(run_copy)
    assert code == 4 and "chain.jsonl is missing" in output


def test_an_older_run_without_a_chain_passes_with_a_warning(run_copy: Path) -> None:
    (run_copy / "chain.jsonl").unlink()
    info = json.loads((run_copy / "run.json").read_text())
    del info["hash_chain"]
    (run_copy / "run.json").write_text(json.dumps(info))
    payload = json.loads(runner.invoke(app, ["verify", run_copy.name, "--json"]).output)
    assert payload["ok"] is True
    assert any(w.startswith("no hash chain (older run)") for w in payload["warnings"])


def test_rejudge_with_a_model_asks_it_about_each_claim(
    run_copy: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def script(request: Any) -> object:
        if "Eiffel" in request.messages[-1].content:
            return {"label": "REFUTES", "sentence": 1}
        return {"label": "SUPPORTS", "sentence": 1}

    model = ScriptedModel(script)
    chosen: list[str | None] = []

    def fake_model(settings: Any, keys: Any) -> ScriptedModel:
        chosen.append(settings.model)
        return model

    monkeypatch.setattr(registry, "model_from_settings", fake_model)  # verify imports it late
    write_lines(run_copy / "claims.jsonl", _edit_text(lines(run_copy / "claims.jsonl")))
    code, output = verify(
        run_copy, "--rejudge", "--model", "openai:judge", "--base-url", "http://127.0.0.1:9/v1"
    )
    assert code == 4 and chosen == ["openai:judge"]
    assert "claim_001: its quote from src_01 does not support its text" in output
    assert "scripted:model says REFUTES" in output
    assert "claim_002: its quote" not in output  # the other claims' quotes support them
