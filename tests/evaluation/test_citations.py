"""Citation precision and effective citations, from a run's own files, in `assay eval`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from assay.cli import app
from assay.evaluation.citations import citation_figures
from assay.evaluation.grade import summarize
from assay.store.claims import ClaimLedger, ClaimRecord, Evidence
from assay.store.runs import RunStore
from assay.store.sources import SourceLedger
from tests.lab_fixtures import TOPICS

PAGE = (
    "The Halvorsen Lighthouse stands on the northern cape of Skarvik Island. "
    "Construction of the Halvorsen Lighthouse was completed in 1874. "
    "Its tower is 41 metres tall and is built of local grey granite."
)


def _run(home: Path) -> tuple[Path, str]:
    """A run with one fetched page and two claims quoting it."""
    run = RunStore(home, fsync=False).create("Halvorsen", "research", {"search": "local"})
    source = SourceLedger(run.dir, fsync=False).add(
        url="http://site.test/halvorsen",
        final_url="http://site.test/halvorsen",
        title="Halvorsen Lighthouse",
        text=PAGE,
        content_type="text/html",
        accessed_at="2026-11-29T10:00:00.000Z",
    )
    claims = ClaimLedger(run.dir, fsync=False)
    for number, quote, text in (
        (1, "Construction of the Halvorsen Lighthouse was completed in 1874.",
         "The Halvorsen Lighthouse was completed in 1874."),
        # the claim says 1880; its quote says 1874: the pair is not supported
        (2, "Construction of the Halvorsen Lighthouse was completed in 1874.",
         "The Halvorsen Lighthouse was completed in 1880."),
    ):  # fmt: skip
        start = PAGE.index(quote)
        claims.append(
            ClaimRecord(
                id=f"claim_00{number}",
                text=text,
                confidence="high",
                sourceIds=[source.id],
                status="weak",
                evidence=[
                    Evidence(sourceId=source.id, quote=quote, start=start, end=start + len(quote))
                ],
            )
        )
    return run.dir, source.url


def test_citation_precision_counts_statement_page_pairs(tmp_path: Path) -> None:
    run_dir, url = _run(tmp_path)
    report = "\n".join([
        "# Halvorsen",
        "**Answer:** 1874 — resting on: The Halvorsen Lighthouse was completed in 1874. "
        "(claim_001: weak)",
        "- The Halvorsen Lighthouse was completed in 1874. [1] (claim_001: weak)",
        "  - supports [1]: “Construction of the Halvorsen Lighthouse was completed in 1874.”",
        "- The Halvorsen Lighthouse was completed in 1880. [1] (claim_002: weak)",
        # a model's sentence citing [1] with no claim: the page's own sentences decide
        "Its granite tower is 41 metres tall [1].",
        "The lighthouse keeper kept three goats on the island [1].",
        # a page the run never fetched supports nothing
        "The island has 300 residents, see <http://invented.test/skarvik>.",
        "",
        "## Sources",
        "",
        f"1. Halvorsen Lighthouse — <{url}> (accessed 2026-11-29)",
    ])  # fmt: skip
    figures = citation_figures(run_dir, report)
    # pairs: answer, claim_001, claim_002, granite, goats, invented; the quote line is none
    assert figures.citations == 6
    assert figures.citations_supported == 3  # the answer, claim_001, the granite sentence
    assert figures.citation_precision == pytest.approx(0.5)
    assert (figures.urls_cited, figures.urls_fetched) == (2, 1)
    assert figures.urls_fetched_share == pytest.approx(0.5)


def test_a_quote_not_in_the_snapshot_supports_nothing(tmp_path: Path) -> None:
    run_dir, url = _run(tmp_path)
    claim = "- The Halvorsen Lighthouse was completed in 1874. [1] (claim_001: weak)"
    report = f"{claim}\n\n1. H — <{url}>\n"
    assert citation_figures(run_dir, report).citations_supported == 1
    snapshot = next((run_dir / "snapshots").iterdir())
    snapshot.write_text(snapshot.read_text().replace("completed in 1874", "finished"))
    assert citation_figures(run_dir, report).citations_supported == 0


def test_a_report_that_cites_nothing_has_no_precision(tmp_path: Path) -> None:
    run_dir, _ = _run(tmp_path)
    figures = citation_figures(run_dir, "# Halvorsen\n\nNothing was found.\n")
    assert figures.citations == 0 and figures.citation_precision is None
    summary = summarize("questions", [
        {"status": "done", "grade": "correct", "wall_seconds": 1.0, "type": "t",
         **figures.to_json()},
        {"status": "done", "grade": "correct", "wall_seconds": 1.0, "type": "t",
         "citations": 4, "citations_supported": 3, "citation_precision": 0.75,
         "urls_cited_distinct": 2, "urls_fetched": 2},
    ])  # fmt: skip
    assert summary["citation_precision"] == pytest.approx(0.75)
    # the report that cites nothing has no precision: it is left out of the mean
    assert summary["citation_precision_mean"] == pytest.approx(0.75)
    assert summary["effective_citations"] == 3 and summary["effective_citations_mean"] == 1.5


def test_eval_reports_citation_precision_in_its_output_json_and_html(tmp_path: Path) -> None:
    topic = "Halvorsen Lighthouse"
    dataset = tmp_path / "q.json"
    dataset.write_text(json.dumps([
        {"_id": "a", "question": "When was the Halvorsen Lighthouse completed?", "answer": "1874",
         "context": [[topic, [" ".join(TOPICS[topic])]]]},
    ]))  # fmt: skip
    out = tmp_path / "ev"
    result = CliRunner().invoke(
        app, ["eval", str(dataset), "--out", str(out), "--sites", "1", "--quiet",
              "--home", str(tmp_path / "home")],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    data = json.loads((out / "eval.json").read_text())
    row, summary = data["rows"][0], data["summary"]
    assert row["citations"] > 0 and row["citation_precision"] == pytest.approx(
        row["citations_supported"] / row["citations"]
    )
    assert row["urls_fetched_share"] == 1.0  # every page the report cites was fetched
    assert summary["citation_precision"] == row["citation_precision"]
    assert summary["effective_citations"] == row["citations_supported"] > 0
    assert f"citation precision {summary['citation_precision']:.3f}" in result.output
    html = (out / "report.html").read_text()
    assert "citation precision (supported statement–page pairs)" in html
    assert "id=citation-precision>Citation precision: of the (statement, cited page)" in html


def test_both_source_list_shapes_are_the_key_to_the_numbers_not_statements() -> None:
    from assay.evaluation.citations import cited_statements, numbered_sources

    report = "\n".join([
        "The tower is 41 metres tall [1][2].",
        "1. Halvorsen — <http://a.test/1> (accessed 2026-11-29)",
        "[2] Halvorsen again — <http://b.test/2> — snapshot snapshots/b.md, accessed 2026-11-29",
    ])  # fmt: skip
    assert numbered_sources(report) == {"1": "http://a.test/1", "2": "http://b.test/2"}
    [statement] = cited_statements(report, {}, [])
    assert statement.urls == ("http://a.test/1", "http://b.test/2")


def test_an_answer_resting_on_two_claims_states_two_things_each_on_its_own_page(
    tmp_path: Path,
) -> None:
    run = RunStore(tmp_path, fsync=False).create("Which is older?", "research", {})
    ledger, claims = SourceLedger(run.dir, fsync=False), ClaimLedger(run.dir, fsync=False)
    urls = []
    for number, (title, fact) in enumerate(
        (("Halvorsen Lighthouse", "The Halvorsen Lighthouse was completed in 1874."),
         ("Mount Oskar", "Mount Oskar last erupted in 1911.")), start=1,
    ):  # fmt: skip
        source = ledger.add(
            url=f"http://site.test/{number}", final_url=f"http://site.test/{number}",
            title=title, text=fact, content_type="text/html", accessed_at="2026-11-29T10:00:00Z",
        )  # fmt: skip
        urls.append(source.url)
        claims.append(
            ClaimRecord(id=f"claim_00{number}", text=fact, confidence="high",
                        sourceIds=[source.id], status="weak",
                        evidence=[Evidence(sourceId=source.id, quote=fact, start=0,
                                           end=len(fact))])
        )  # fmt: skip
    report = (
        "**Answer:** Halvorsen Lighthouse — resting on: The Halvorsen Lighthouse was completed "
        "in 1874. (claim_001: weak); Mount Oskar last erupted in 1911. (claim_002: weak)\n"
    )
    figures = citation_figures(run.dir, report)
    assert (figures.citations, figures.citations_supported) == (2, 2)


def test_a_no_answer_line_states_its_closest_evidence_not_why_it_has_no_answer() -> None:
    from assay.evaluation.citations import statement_text

    line = (
        "**Answer:** No direct answer found (no answer of the model passed the check: the "
        "answer only repeats words of the question); closest evidence: The Halvorsen "
        "Lighthouse was completed in 1874. (claim_001: weak)"
    )
    assert statement_text(line) == "The Halvorsen Lighthouse was completed in 1874."
