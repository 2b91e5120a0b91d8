"""web-research outputs a person would use (issue 25), over the ferry lab (real HTTP, the
extractive engine): conflicts only of one subject and slot, a summary that does not say
its answer twice, warnings in every format, a capped junk page that is no source, key
points that stand alone."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from assay.lab import Lab
from assay.protocols.web_research import web_research
from assay.protocols.web_research.basis import drop_partial
from assay.protocols.web_research.keypoints import KeyPoint, record_key_points
from assay.protocols.web_research.results import Quote, SourceFindings
from assay.protocols.web_research.synthesis import Synthesis, find_conflicts
from assay.store.claims import ClaimLedger, ClaimRecord, Evidence
from assay.store.runs import RunStore
from assay.store.sources import SourceRecord
from tests.protocols.web_research.test_goldens import TOPIC, ferry_lab, lab_options

__all__ = ["ferry_lab"]  # the goldens' session fixture, shared

HD38 = "The Heinkel HD 38 was a fighter aircraft developed in Germany in the late 1920s."
HD32 = "The Heinkel HD 32 was a trainer developed in Germany in the 1920s."


def _record(n: int, title: str) -> SourceRecord:
    url = f"http://127.0.0.{n}/page"
    return SourceRecord(
        id=f"src_{n:02d}", url=url, final_url=url, title=title, snapshot=f"snapshots/{n}.md",
        accessed_at="2026-12-01T00:00:00.000Z", sha256="0" * 64, domain=f"127.0.0.{n}",
        content_type="text/html",
    )  # fmt: skip


def _refuted_by(title: str, quote: str) -> Synthesis:
    """The HD 38's page's claim, labelled contradicted by ``quote`` on a page ``title``."""
    own, other = _record(1, "Heinkel HD 38"), _record(2, title)
    claim = ClaimRecord(
        id="claim_001", text=HD38, confidence="medium", sourceIds=[own.id],
        status="contradicted",
        evidence=[Evidence(sourceId=own.id, quote=HD38, start=0, end=len(HD38)),
                  Evidence(sourceId=other.id, quote=quote, start=0, end=len(quote),
                           stance="refutes")],
    )  # fmt: skip
    findings = [SourceFindings(own, ["claim_001"]), SourceFindings(other, [])]
    return Synthesis("Heinkel", findings, {"claim_001": claim}, [], [], "low", "test", "now")


def test_a_refutation_quoting_another_aircraft_is_no_conflict() -> None:
    assert find_conflicts(_refuted_by("Heinkel HD 32", HD32)) == []  # was "Sources disagree"
    same = HD38.replace("fighter aircraft", "trainer")
    (found,) = find_conflicts(_refuted_by("Heinkel HD 38", same))  # its own page: it stands
    assert found.claim_ids == ("claim_001",)


def _run(lab: Lab, fmt: str, urls: list[str] | None = None, **kw: Any) -> Any:
    return web_research(TOPIC, urls or [], [] if urls else [TOPIC], "medium", fmt,
                        **lab_options(lab), **kw)  # fmt: skip


def test_the_summary_does_not_repeat_its_answer_sentence(ferry_lab: Lab) -> None:
    text = _run(ferry_lab, "summary").output
    answer = next(line for line in text.splitlines() if line.startswith("**Answer:** "))
    sentence = answer.removeprefix("**Answer:** ").split(" [<", 1)[0]
    assert len(sentence.split()) > 5  # a whole sentence (the ferry's first crossing)
    assert text.count(sentence) == 1, sentence


def test_the_structured_output_carries_the_warnings(ferry_lab: Lab) -> None:
    pages = [url for url, _ in ferry_lab.pages]
    missing = ferry_lab.sites[0] + "/no-such-page"
    result = _run(ferry_lab, "structured", [missing, *pages[:5]])
    value = result.output
    assert isinstance(value, dict) and value["warnings"], value.get("warnings")
    assert any(missing in w and "skipped" in w for w in value["warnings"])
    assert value["warnings"] == result.warnings  # what the markdown lists, the same
    stored = json.loads((Path(result.run_dir) / "report.json").read_text())
    assert stored["warnings"] == value["warnings"]


def test_a_page_cut_at_the_size_cap_is_not_counted_among_the_sources(ferry_lab: Lab) -> None:
    pages = [url for url, _ in ferry_lab.pages]
    huge = ferry_lab.sites[0] + "/fault/huge"
    result = web_research(TOPIC, [huge, *pages[:3]], [], "shallow", "report",
                          **lab_options(ferry_lab))  # fmt: skip
    text = result.output
    assert "· Sources: 3" in text  # the three whole pages (was 4: the junk page counted)
    references = text.split("## References", 1)[1].split("## Warnings", 1)[0]
    assert huge not in references and "Huge page" not in references
    assert any(huge in w for w in result.warnings)


def test_a_cut_page_that_gives_nothing_is_skipped_with_why() -> None:
    cut = SourceFindings(_record(1, "Huge page"), ["claim_009"], truncated=True)
    whole = SourceFindings(_record(2, "Orla ferry"), ["claim_001"])
    kept, dropped = drop_partial([cut, whole], {"claim_001": _claim("claim_001")})
    assert kept == [whole]
    assert [(d.url, d.reason) for d in dropped] == [
        (cut.url, "cut at the size cap, and no whole page states any of its key points")
    ]


def _claim(claim_id: str) -> ClaimRecord:
    return ClaimRecord(id=claim_id, text="x", confidence="medium", sourceIds=["src_02"])


def test_key_points_stand_alone(ferry_lab: Lab, isolated_home: Path) -> None:
    value = _run(ferry_lab, "structured").output
    points = [p for s in value["sources"] for p in s["key_points"]]
    assert points and not [p for p in points if p.startswith(("It ", "Its ", "Like that"))]
    run = RunStore(isolated_home, fsync=False).create("bridges", "web-research", {})
    leaning = KeyPoint("It opened in 1931.", Quote("It opened in 1931.", 0, 18))
    named = record_key_points(run, _record(3, "Brask bridge"), [leaning])
    nameless = record_key_points(run, _record(4, "Bridges of 1931 and 1932"), [leaning])
    claims = ClaimLedger(run.dir).claims()
    assert [c.text for c in claims] == ["Brask bridge opened in 1931."]
    assert claims[0].stated_as == "It opened in 1931."
    assert named.claim_ids == ["claim_001"] and nameless.claim_ids == []
