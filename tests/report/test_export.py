"""``assay export`` and the HTML report renderer: self-contained, escaped, hover quotes."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from assay.cli import app
from assay.report.html import render_report_html, report_parts
from assay.store.claims import ClaimLedger, ClaimRecord, Evidence
from assay.store.runs import RunStore
from assay.store.sources import SourceLedger

runner = CliRunner()
HOSTILE = '<script>alert("x")</script><img src=x onerror=alert(1)>'


@pytest.fixture
def lab_run(lab_research_run: Path) -> tuple[Path, str]:
    """The shared lab research run (read only here): (its home, its id)."""
    return lab_research_run.parents[1], lab_research_run.name


def claims_data(page: str) -> dict[str, dict[str, object]]:
    island = re.search(r'<script type="application/json" id="claims-data">(.*?)</script>', page)
    assert island is not None
    data: dict[str, dict[str, object]] = json.loads(island.group(1))
    return data


def test_html_export_marks_every_claim_and_carries_its_quotes(
    lab_run: tuple[Path, str], tmp_path: Path
) -> None:
    home, run_id = lab_run
    target = tmp_path / "out.html"
    result = runner.invoke(app, ["export", run_id, "--home", str(home), "-o", str(target)])
    assert result.exit_code == 0, result.output
    page = target.read_text(encoding="utf-8")
    buttons = re.findall(r'<button type="button" class="cite (\w+)" data-claim="(claim_\d+)"', page)
    assert buttons
    data = claims_data(page)
    for status, claim_id in buttons:
        assert data[claim_id]["status"] == status
        quotes = data[claim_id]["quotes"]
        assert isinstance(quotes, list) and quotes
        assert all(q["href"] == f"#snapshot-{q['source']}" for q in quotes)
    snapshots = json.loads(
        re.search(
            r'<script type="application/json" id="snapshots-data">(.*?)</script>', page
        ).group(1)  # type: ignore[union-attr]
    )
    quote = next(q for c in data.values() for q in c["quotes"])  # type: ignore[attr-defined]
    marked = snapshots[quote["source"]][quote["start"] : quote["end"]]
    assert " ".join(marked.split()) == quote["quote"]
    # self-contained: nothing is loaded from elsewhere
    assert "<link" not in page and "src=" not in page.split("<script>")[0]


def test_md_and_json_exports_are_the_report_and_the_ledgers(
    lab_run: tuple[Path, str], tmp_path: Path
) -> None:
    home, run_id = lab_run
    run = RunStore(home).open(run_id)
    md = tmp_path / "r.md"
    args = ["export", run_id, "--home", str(home), "--format", "md", "-o", str(md)]
    assert runner.invoke(app, args).exit_code == 0
    assert md.read_text(encoding="utf-8") == (run.dir / "report.md").read_text(encoding="utf-8")
    out = tmp_path / "r.json"
    result = runner.invoke(app, ["export", run_id, f"--home={home}", "--format=json", f"-o{out}"])
    assert result.exit_code == 0, result.output
    data = json.loads(out.read_text(encoding="utf-8"))
    assert data["run"]["id"] == run_id
    assert len(data["claims"]) == len(ClaimLedger(run.dir).claims())
    assert data["report_markdown"] == (run.dir / "report.md").read_text(encoding="utf-8")


def test_an_unknown_format_is_a_user_error(lab_run: tuple[Path, str]) -> None:
    home, run_id = lab_run
    result = runner.invoke(app, ["export", run_id, "--home", str(home), "-f", "docx"])
    assert result.exit_code == 2


def test_page_text_is_escaped_everywhere(isolated_home: Path) -> None:
    run = RunStore(isolated_home, fsync=False).create(HOSTILE, "research", {})
    source = SourceLedger(run.dir, fsync=False).add(
        url="http://site.test/a", final_url="http://site.test/a", title=HOSTILE,
        text=f"Before. {HOSTILE} After.", content_type="text/html",
        accessed_at="2026-11-29T10:00:00.000Z",
    )  # fmt: skip
    start = len("Before. ")
    quote = Evidence(sourceId=source.id, quote=HOSTILE, start=start, end=start + len(HOSTILE))
    claim = ClaimRecord(
        id="claim_001", text=HOSTILE, confidence="high", sourceIds=[source.id], status="weak",
        evidence=[quote],
    )  # fmt: skip
    ClaimLedger(run.dir, fsync=False).append(claim)
    run.write_file("report.md", f"# {HOSTILE}\n\n- {HOSTILE} [1] (claim_001: weak)\n")
    page = render_report_html(report_parts(run), lambda s, c, i: "#")
    assert "<script>alert" not in page and "<img" not in page
    assert page.count("<script") == 2  # the JSON island and the page's own script
    assert claims_data(page)["claim_001"]["text"] == HOSTILE  # the data survives as data


@pytest.mark.browser
@pytest.mark.skipif(shutil.which("chromium") is None, reason="needs Debian's chromium")
def test_pdf_export_prints_the_page(lab_run: tuple[Path, str], tmp_path: Path) -> None:
    home, run_id = lab_run
    out = tmp_path / "r.pdf"
    result = runner.invoke(app, ["export", run_id, f"--home={home}", "--format=pdf", f"-o{out}"])
    assert result.exit_code == 0, result.output
    assert out.read_bytes().startswith(b"%PDF-") and out.stat().st_size > 2000
