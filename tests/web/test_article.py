"""The report page shows the question, the answer and the sources once each (issue 26):
the rendered report leaves out its title, its answer line (when the answer card shows the
answer) and its source list; the sources panel takes the numbers the report cites by."""

from __future__ import annotations

import re
from pathlib import Path

from assay.config import load_settings
from assay.events import AnswerGiven
from assay.store.claims import ClaimLedger, ClaimRecord, Evidence
from assay.store.runs import Run, RunStore
from assay.store.sources import SourceLedger
from assay.web.app import ServerConfig, create_app
from tests.web.test_api import api_client, run_async

TOPIC = "How tall is the Quarrow Tower?"
ANSWER = "97 metres"


def _run(home: Path, report: str, *, answered: bool) -> Run:
    run = RunStore(home, fsync=False).create(TOPIC, "research", {})
    sources = SourceLedger(run.dir, fsync=False)
    first = sources.add(
        url="http://one.test/a", final_url="http://one.test/a", title="First page",
        text="The tower stands 97 m tall.", content_type="text/html",
        accessed_at="2026-11-29T10:00:00.000Z",
    )  # fmt: skip
    sources.add(
        url="http://two.test/b", final_url="http://two.test/b", title="Second page",
        text="Built in 1931.", content_type="text/html", accessed_at="2026-11-29T10:00:00.000Z",
    )  # fmt: skip
    quote = Evidence(sourceId=first.id, quote="The tower stands 97 m tall.", start=0, end=27)
    ClaimLedger(run.dir, fsync=False).append(
        ClaimRecord(
            id="claim_001",
            text="The Quarrow Tower is 97 m tall.",
            confidence="high",
            sourceIds=[first.id],
            status="weak",
            evidence=[quote],
        )
    )
    if answered:
        run.events.emit(AnswerGiven(text=ANSWER, claim_ids=["claim_001"], method="extractive:span"))
    run.write_file("report.md", report)
    run.finish("done")
    return run


RESEARCH_REPORT = f"""# {TOPIC}

## Executive summary

**Answer:** {ANSWER} [1] (claim_001: weak)

1 claim from 2 sources: 1 weak.

## Findings

- The Quarrow Tower is 97 m tall. [1] (claim_001: weak)

## Sources

1. First page — <http://one.test/a> (accessed 2026-11-29)
2. Second page — <http://two.test/b> (accessed 2026-11-29)

---
Written by assay (extractive)
"""

DEEP_REPORT = f"""# {TOPIC}

**Answer:** {ANSWER} [2] (claim_001: weak)

## Findings

- Built in 1931. [1]
- The Quarrow Tower is 97 m tall. [2] (claim_001: weak)

## Gaps

- none

## Bibliography

[1] Second page — <http://two.test/b> — snapshot snapshots/b.md
[2] First page — <http://one.test/a> — snapshot snapshots/a.md
"""


def _report_page(home: Path, run: Run) -> str:
    app = create_app(ServerConfig(load_settings(home=home)))
    found: list[str] = []

    async def scenario() -> None:
        async with api_client(app) as client:
            page = await client.get(f"/runs/{run.id}/report")
            assert page.status_code == 200
            found.append(page.text)

    run_async(scenario)
    return found[0]


def _visible(page: str) -> str:
    """The page without its script elements (the claims' data island names sources too)."""
    return re.sub(r"<script\b.*?</script>", "", page, flags=re.S)


def _article(page: str) -> str:
    match = re.search(r'<article class="report">(.*?)</article>', page, re.S)
    assert match
    return match.group(1)


def test_the_report_page_shows_the_answer_and_each_source_once(isolated_home: Path) -> None:
    page = _visible(
        _report_page(isolated_home, _run(isolated_home, RESEARCH_REPORT, answered=True))
    )
    assert page.count(ANSWER) == 1  # in the answer card
    assert ANSWER not in _article(page)
    assert page.count("First page") == 1 and page.count("Second page") == 1  # the panel
    assert page.count(TOPIC) == 2  # the page's <title> and its <h1>, not the article's
    article = _article(page)
    assert "Findings" in article and "97 m tall" in article
    assert "Written by assay" in article  # the footer after the source list stays


def test_the_sources_panel_numbers_sources_as_the_report_cites_them(
    isolated_home: Path,
) -> None:
    # the ledger's second source is the one cited first
    page = _report_page(isolated_home, _run(isolated_home, DEEP_REPORT, answered=False))
    panel = page.split('id="sources"', 1)[1]
    items = re.findall(r'<li value="(\d+)"><a href="[^"]+">([^<]+)</a>', panel)
    assert items == [("1", "Second page"), ("2", "First page")]
    assert "Bibliography" not in _article(page)
    # no answer card answer: the report's answer line stays where it is
    assert f"<strong>Answer:</strong> {ANSWER}" in _article(page)


def test_page_article_keeps_a_report_without_a_source_list() -> None:
    from assay.web.article import page_article

    article = page_article("# Title\n\n## Findings\n\n- one\n", answer_shown=True)
    assert article.markdown == "## Findings\n\n- one\n" and article.numbers == {}
