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
from assay.store.chain import GENESIS, ChainEntry
from assay.store.sources import SourceRecord, render_snapshot, text_sha256

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
    entries = lines(run_copy / "chain.jsonl")
    payload = json.loads(runner.invoke(app, ["verify", run_copy.name, "--json"]).output)
    assert payload["ok"] is True and payload["failures"] == [] and payload["warnings"] == []
    # the head an outside witness keeps: the chain as verify read it (its own events after)
    assert payload["chain"] == {"entries": len(entries), "head": entries[-1]["hash"]}
    assert len(lines(run_copy / "chain.jsonl")) > len(entries)
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
        f"source {relabelled['id']} was edited in sources.jsonl: domain, final_url, url changed"
        in output
    )
    assert "claim_001: claims.jsonl says verified, but it re-derives as weak" in output


def test_rejudge_catches_an_edited_claim_text_without_a_chain(run_copy: Path) -> None:
    """Even with the chain gone, the quotes do not say what the text says: code sees the
    names missing, and a judge reads the rest."""
    _delete_the_chain(run_copy)
    write_lines(run_copy / "claims.jsonl", _edit_text(lines(run_copy / "claims.jsonl")))
    code, output = verify(run_copy)
    assert code == 4 and "chain.jsonl is missing" in output  # a run without one fails
    assert (  # and code sees that the quote does not name what the text names
        "claim_001: claims.jsonl says weak, but it re-derives as needs_review: "
        "names_supported: evidence 0 (src_01) lacks Eiffel Tower, Berlin, Germany"
    ) in output
    code, output = verify(run_copy, "--rejudge")
    assert code == 4
    assert "claim_001: its quote from src_01 does not support its text" in output
    assert "Eiffel" in output


def _delete_the_chain(run: Path) -> None:
    """What a forger does to hide an edit: delete the chain and every sign it existed."""
    (run / "chain.jsonl").unlink()
    info = json.loads((run / "run.json").read_text())
    del info["hash_chain"]
    (run / "run.json").write_text(json.dumps(info, indent=2))


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
    evidence["quote"] = evidence["quote"].replace(" ", " not ", 1)  # a word the page lacks
    assert " not " in evidence["quote"]
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


def test_a_run_without_a_chain_fails_closed(run_copy: Path) -> None:
    """A run made before chains and one whose chain a forger deleted look alike: both fail."""
    _delete_the_chain(run_copy)
    result = runner.invoke(app, ["verify", run_copy.name, "--json"])
    assert result.exit_code == 4
    payload = json.loads(result.stdout)
    assert payload["ok"] is False and payload["warnings"] == []
    assert payload["failures"][0].startswith("chain.jsonl is missing: the run predates")
    assert "or its chain was deleted" in payload["failures"][0]


def test_a_forged_verified_claim_with_the_chain_deleted_fails(run_copy: Path) -> None:
    """The downgrade of issue 22: a fake second origin for a weak claim, a fake snapshot that
    hashes right, the claim and the report saying verified, and the chain deleted."""
    sources = lines(run_copy / "sources.jsonl")
    quote = "Construction of the Halvorsen Lighthouse was completed in 1874."
    text = f"# Lighthouse registry\n\nEntry 118 of the registry. {quote} It is a listed site.\n"
    url = "https://lighthouse-registry.example.org/halvorsen"
    fake = sources[0] | {
        "id": "src_06",
        "url": url,
        "final_url": url,
        "domain": "lighthouse-registry.example.org",
        "title": "Lighthouse registry",
        "snapshot": "snapshots/registry.md",
        "sha256": text_sha256(text),
    }
    (run_copy / fake["snapshot"]).write_text(
        render_snapshot(SourceRecord.model_validate(fake), text)
    )
    write_lines(run_copy / "sources.jsonl", [*sources, fake])
    claims = lines(run_copy / "claims.jsonl")
    start = text.index(quote)
    claims[0]["evidence"].append(
        {"sourceId": "src_06", "quote": quote, "start": start, "end": start + len(quote)}
        | {"stance": "supports"}
    )
    claims[0]["sourceIds"].append("src_06")
    claims[0].update(status="verified", status_reason="supported by 2 independent origins")
    write_lines(run_copy / "claims.jsonl", claims)
    report = run_copy / "report.md"
    report.write_text(report.read_text().replace("(claim_001: weak)", "(claim_001: verified)"))
    _delete_the_chain(run_copy)
    for extra in ((), ("--rejudge",)):
        code, output = verify(run_copy, *extra)
        assert code == 4, output
        assert "chain.jsonl is missing: the run predates hash chains" in output


def test_a_chain_without_its_format_header_fails(run_copy: Path) -> None:
    """A chain rebuilt without the header that says it covers every field (an older format,
    or a forger's) is refused, even when every link is recomputed."""
    entries = [e for e in lines(run_copy / "chain.jsonl") if e["kind"] != "chain"]
    prev = GENESIS
    for seq, entry in enumerate(entries, start=1):
        entry.update(seq=seq, prev=prev)
        entry["hash"] = prev = ChainEntry.link(
            seq, entry["kind"], entry["id"], entry["parts"], prev
        )
    write_lines(run_copy / "chain.jsonl", entries)
    code, output = verify(run_copy)
    assert code == 4
    assert "chain.jsonl does not start with the header of chain format 2" in output


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


def test_a_file_the_chain_does_not_cover_is_named(run_copy: Path) -> None:
    (run_copy / "notes.txt").write_text("verified by hand")
    payload = json.loads(runner.invoke(app, ["verify", run_copy.name, "--json"]).output)
    assert payload["ok"] is True
    assert payload["warnings"] == ["notes.txt is not covered by chain.jsonl: not verified"]


def _another_confidence(claim: dict[str, Any]) -> str:
    """A confidence the claim does not have: the edit must change the file."""
    return next(c for c in ("high", "medium", "low") if c != claim["confidence"])


def _edit(name: str, change: Callable[[list[dict[str, Any]]], object]) -> Callable[[Path], None]:
    """A tampering that edits the records of one JSON Lines file with ``change``."""

    def edit(run: Path) -> None:
        records = lines(run / name)
        change(records)
        write_lines(run / name, records)

    return edit


def _edit_info(change: Callable[[dict[str, Any]], object]) -> Callable[[Path], None]:
    def edit(run: Path) -> None:
        info = json.loads((run / "run.json").read_text())
        change(info)
        (run / "run.json").write_text(json.dumps(info, indent=2))

    return edit


def _relabel_front_matter(run: Path) -> None:
    """The header of a snapshot is not covered by its sha256 (that is the text's)."""
    source = lines(run / "sources.jsonl")[0]
    snapshot = run / source["snapshot"]
    old = f"title: {json.dumps(source['title'])}"
    assert old in snapshot.read_text()
    snapshot.write_text(snapshot.read_text().replace(old, 'title: "Official registry"', 1))


def _truncate_log(run: Path) -> None:
    log = run / "run.log.jsonl"
    log.write_text("".join(log.read_text().splitlines(keepends=True)[:-3]))


def _swap(first: int, second: int) -> Callable[[list[dict[str, Any]]], None]:
    def swap(records: list[dict[str, Any]]) -> None:
        records[first], records[second] = records[second], records[first]

    return swap


def _mark_irrelevant(record: dict[str, Any]) -> None:
    record["relevance"].update(relevant=False, score=0.1)


CLAIMS, SOURCES, LOG = "claims.jsonl", "sources.jsonl", "run.log.jsonl"
TAMPERINGS: list[tuple[str, Callable[[Path], None], str]] = [
    (
        "source-title",
        _edit(SOURCES, lambda r: r[0].update(title="Official registry")),
        "source src_01 was edited in sources.jsonl: title changed",
    ),
    ("snapshot-front-matter", _relabel_front_matter, "src_01: the front matter of snapshots/"),
    (
        "run-topic",
        _edit_info(lambda info: info.update(topic="When was the lighthouse built?")),
        "run.json was edited: topic changed",
    ),
    (
        "run-model",
        _edit_info(lambda info: info["config"].update(model="openai:gpt-5")),
        "run.json was edited: config changed",
    ),
    (
        "created-by",
        _edit(CLAIMS, lambda r: r[0].update(created_by="a human fact-checker")),
        "claim claim_001 was edited in claims.jsonl: created_by changed",
    ),
    (
        "verified-by",
        _edit(CLAIMS, lambda r: r[0].update(verified_by="openai:gpt-5")),
        "claim claim_001 was edited in claims.jsonl: verified_by changed",
    ),
    (
        "confidence",
        _edit(CLAIMS, lambda r: r[1].update(confidence=_another_confidence(r[1]))),
        "claim claim_002 was edited in claims.jsonl: confidence changed",
    ),
    (
        "status-reason",
        _edit(CLAIMS, lambda r: r[0].update(status_reason="supported by 3 independent origins")),
        "claim claim_001 was edited in claims.jsonl: status_reason changed",
    ),
    (
        "claim-relevance",
        _edit(CLAIMS, lambda r: _mark_irrelevant(r[0])),
        "claim claim_001 was edited in claims.jsonl: relevance changed",
    ),
    (
        "source-relevance",
        _edit(SOURCES, lambda r: _mark_irrelevant(r[0])),
        "source src_01 was edited in sources.jsonl: relevance changed",
    ),
    (
        "accessed-at",
        _edit(SOURCES, lambda r: r[1].update(accessed_at="2020-01-01T00:00:00.000Z")),
        "source src_02 was edited in sources.jsonl: accessed_at changed",
    ),
    (
        "content-type",
        _edit(SOURCES, lambda r: r[1].update(content_type="application/pdf")),
        "source src_02 was edited in sources.jsonl: content_type changed",
    ),
    ("log-truncated", _truncate_log, "is in chain.jsonl but missing from run.log.jsonl"),
    (
        "log-event-edited",
        _edit(LOG, lambda r: r[-1]["data"].update(status="failed")),
        "was edited in run.log.jsonl: data changed",
    ),
    ("log-reordered", _edit(LOG, _swap(1, 2)), "run.log.jsonl is out of order"),
    ("claims-reordered", _edit(CLAIMS, _swap(0, 1)), "claims.jsonl is out of order"),
    ("sources-reordered", _edit(SOURCES, _swap(0, 1)), "sources.jsonl is out of order"),
]


@pytest.mark.parametrize(
    ("tamper", "expected"), [t[1:] for t in TAMPERINGS], ids=[t[0] for t in TAMPERINGS]
)
def test_every_field_a_report_or_status_rests_on_is_chained(
    run_copy: Path, tamper: Callable[[Path], None], expected: str
) -> None:
    """The edits of issue 22 that `verify` let through: each now fails, and is named."""
    tamper(run_copy)
    code, output = verify(run_copy)
    assert code == 4, output
    assert expected in output


@pytest.mark.parametrize(
    "name", ["snapshot", "claims.jsonl", "sources.jsonl", "run.json", "run.log.jsonl", "snapshots"]
)
def test_a_symlinked_run_file_is_refused_with_exit_4(
    run_copy: Path, tmp_path: Path, name: str
) -> None:
    """A link can point a check at any file (or make `verify` write through it): refused,
    in one line, as an integrity failure, and nothing is written through it."""
    relative = lines(run_copy / SOURCES)[0]["snapshot"] if name == "snapshot" else name
    inside = run_copy / relative
    outside = tmp_path / "elsewhere" / Path(relative).name
    outside.parent.mkdir()
    shutil.move(inside, outside)
    inside.symlink_to(outside)
    before = sorted((p.name, p.stat().st_size) for p in outside.parent.rglob("*"))
    code, output = verify(run_copy)
    assert code == 4, output
    assert f"{relative} is a symbolic link" in output
    assert sorted((p.name, p.stat().st_size) for p in outside.parent.rglob("*")) == before
