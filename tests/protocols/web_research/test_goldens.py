"""Golden files pin the three web-research output shapes and the error messages.

The runs are real: the web lab serves a small corpus about a fictional ferry on five
loopback sites, the real fetcher reads it, and the extractive engine (deterministic)
writes the output. Volatile parts (ports, times, dates, run ids, the version) are
normalised before comparing. ``UPDATE_GOLDEN=1 pytest tests/protocols/web_research/test_goldens.py``
rewrites the files under tests/golden/web_research/.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from assay.cli import app
from assay.gather.documents import Document, make_doc_id
from assay.lab import Lab, serve_lab
from assay.protocols.web_research import web_research
from assay.protocols.web_research.structured import load_schema, validate_structured
from assay.protocols.web_research.summary import MAX_WORDS, MIN_WORDS, word_count
from assay.store.claims import ClaimLedger
from assay.store.jsonl import read_jsonl
from assay.store.markers import cited_urls, claim_markers
from tests.paths import TESTS

GOLDEN = TESTS / "golden" / "web_research"
TOPIC = "Orla river ferry"
runner = CliRunner()

FERRY: dict[str, list[str]] = {
    "Orla river ferry: a short history": [
        "The Orla river ferry first carried passengers across the river in 1893.",
        "Before the ferry, travellers used a rowing boat kept by a farmer at Lindholm.",
        "The first ferry was a cable ferry pulled across the river by hand.",
        "It was replaced by a steam ferry in 1921.",
        "The steam ferry sank during a storm in 1954 without loss of life.",
        "The current vessel, the Maren, was built in 1968 at the Tessby shipyard.",
        "Plans for a road bridge at Brask were rejected in 2011.",
        "It is said that the first ferryman never learned to swim.",
        "Local historians keep the old ferry bell in the Brask church.",
    ],
    "Crossing the Orla: timetable and tickets": [
        "The ferry crossing between Brask and Lindholm is 640 metres long.",
        "The ferry runs every 20 minutes from May to September.",
        "In winter the ferry runs every 40 minutes.",
        "A single crossing takes about six minutes.",
        "Tickets are sold on board and cost four euros for a car.",
        "Cyclists have crossed free of charge since 2015.",
        "The last departure from Brask leaves at ten in the evening.",
        "The landing at Lindholm has a small café and public toilets.",
    ],
    "The Maren, the Orla ferry's workhorse": [
        "The current vessel, the Maren, was built in 1968 at the Tessby shipyard.",
        "The Maren can carry 24 cars and 150 passengers.",
        "The Maren is 48 metres long and has two diesel engines.",
        "Her engines were replaced in 2002.",
        "A single crossing takes about six minutes.",
        "A crew of three runs each shift on the ferry.",
        "The Maren is due to be replaced by an electric ferry in 2028.",
    ],
    "Who pays for the Orla ferry": [
        "The ferry is operated by the Orla Valley county council.",
        "The council spends about 1.2 million euros a year on the ferry service.",
        "Fares cover roughly half of the running cost of the ferry.",
        "Plans for a road bridge at Brask were rejected in 2011.",
        "Cyclists have crossed free of charge since 2015.",
        "The Maren can carry 30 cars and 150 passengers.",
        "A petition against ferry fare increases gathered 3,000 signatures in 2019.",
        "The council has promised to keep the ferry running until at least 2040.",
    ],
    "The river at the Orla ferry crossing": [
        "The ferry crossing between Brask and Lindholm is 640 metres long.",
        "The river at the ferry crossing is up to nine metres deep.",
        "Otters are often seen near the Lindholm ferry landing.",
        "The ferry runs every 20 minutes from May to September.",
        "The planned electric ferry would charge its batteries at Brask during each stop.",
        "Many believe the ferry is the cheapest way to cross the valley.",
        "Spring floods stopped the ferry service for 11 days in 2020.",
    ],
}


def ferry_documents() -> list[Document]:
    docs = []
    for title, sentences in FERRY.items():
        half = (len(sentences) + 1) // 2
        text = " ".join(sentences[:half]) + "\n\n" + " ".join(sentences[half:]) + "\n"
        docs.append(Document(make_doc_id(title), title, text, None, None, "text/plain"))
    return docs


@pytest.fixture(scope="session")
def ferry_lab() -> Iterator[Lab]:
    """The ferry corpus on five sites (one page each), 127.0.0.20-24, faults on."""
    with serve_lab(ferry_documents(), sites=5, faults=True, first_address="127.0.0.20") as lab:
        yield lab


def lab_options(lab: Lab) -> dict[str, Any]:
    return {"search": "searxng", "searxng_url": lab.sites[0], "allow_hosts": ["127.0.0.0/8"]}


def cli_lab_flags(lab: Lab) -> list[str]:
    return ["--search", "searxng", "--searxng-url", lab.sites[0], "--allow-host", "127.0.0.0/8"]


def normalise(text: str, lab: Lab | None = None) -> str:
    if lab is not None:
        text = text.replace(f":{lab.port}", ":PORT")
    text = re.sub(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?Z", "<TIME>", text)
    text = re.sub(r"\b\d{8}-\d{6}-[a-z0-9-]+", "<RUN-ID>", text)
    text = re.sub(r"\d{4}-\d{2}-\d{2}", "<DATE>", text)
    return re.sub(r"assay \d+\.\d+\.\d+\S*", "assay <VERSION>", text)


def check_golden(name: str, text: str) -> None:
    path = GOLDEN / name
    if os.environ.get("UPDATE_GOLDEN") == "1":
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    assert path.is_file(), f"{path} is missing: run with UPDATE_GOLDEN=1 to write it"
    assert text == path.read_text(encoding="utf-8"), f"{name} differs (UPDATE_GOLDEN=1 rewrites)"


def test_summary_golden_and_assay_verify(ferry_lab: Lab) -> None:
    urls = [url for url, _ in ferry_lab.pages]
    result = web_research(TOPIC, urls=urls, depth="medium", **lab_options(ferry_lab))
    assert result.status == "done" and result.engine == "extractive" and result.model is None
    assert len(result.sources_used) == 5  # medium = 5 sources
    assert isinstance(result.output, str)
    check_golden("summary.md", normalise(result.output, ferry_lab))
    assert result.report_path.read_text(encoding="utf-8") == result.output
    opening = result.output.split("\n\n### Sources")[0].split("\n", 2)[2]
    answer, _, synthesis = opening.strip().partition("\n\n")
    assert answer.startswith("**Answer:** The Orla river ferry")  # the short answer first
    assert MIN_WORDS <= word_count(synthesis) <= MAX_WORDS
    assert 2 <= len(synthesis.strip().split("\n\n")) <= 3
    markers = claim_markers(result.output)
    ledger = {c.id: c.status for c in ClaimLedger(result.run_dir).claims()}
    assert markers and all(ledger[claim] == status for claim, status in markers)
    assert set(cited_urls(result.output)) <= set(urls)
    assert "It is said" not in result.output and "Many believe" not in result.output
    verified = runner.invoke(app, ["verify", result.run_id])
    assert verified.exit_code == 0, verified.output
    assert "every claim presented as verified holds" in verified.output


def test_report_golden_through_the_cli_json(ferry_lab: Lab) -> None:
    args = ["web-research", TOPIC, "--keyword", "Orla ferry timetable", "--keyword", "Maren"]
    args += ["--depth", "shallow", "--format", "report", "--json", *cli_lab_flags(ferry_lab)]
    invoked = runner.invoke(app, args)
    assert invoked.exit_code == 0, invoked.output
    shown = json.loads(invoked.stdout)  # one JSON object and nothing else
    assert set(shown) >= {"run_id", "status", "report", "output", "claims", "sources"}
    assert set(shown) >= {"usage", "engine", "model", "warnings", "skipped"}
    assert shown["status"] == "done" and shown["engine"] == "extractive"
    assert len(shown["sources"]) == 3  # shallow = 3 sources
    presented = {claim for claim, _ in claim_markers(Path(shown["report"]).read_text())}
    ledger = read_jsonl(Path(shown["run_dir"]) / "claims.jsonl").records
    relevant = {c["id"] for c in ledger if c["relevance"]["relevant"]}
    assert relevant and presented == relevant  # every relevant claim, and only those
    check_golden("report.md", normalise(shown["output"], ferry_lab))


def test_structured_golden_matches_the_shipped_schema(ferry_lab: Lab) -> None:
    urls = [url for url, _ in ferry_lab.pages][:3]
    result = web_research(
        TOPIC,
        urls=urls,
        keywords=["Maren ferry passengers"],
        output_format="structured",
        **lab_options(ferry_lab),
    )
    assert result.status == "done" and isinstance(result.output, dict)
    validate_structured(result.output)
    assert load_schema()["required"] == [
        "topic",
        "sources",
        "themes",
        "contradictions",
        "confidence",
    ]
    on_disk = json.loads((result.run_dir / "report.json").read_text(encoding="utf-8"))
    assert on_disk == result.output
    listed = [s["url"] for s in result.output["sources"]]  # sources with a relevant key point
    given = [u for u in urls if u in listed]
    assert given and listed[: len(given)] == given  # given urls come first
    assert result.output["contradictions"], "the two car counts (24, 30) are flagged"
    dumped = json.dumps(result.output, indent=2, ensure_ascii=False) + "\n"
    check_golden("structured.json", normalise(dumped, ferry_lab))
    verified = runner.invoke(app, ["verify", result.run_id])  # report.md carries the markers
    assert verified.exit_code == 0, verified.output


def test_error_messages_golden(ferry_lab: Lab) -> None:
    cases = [
        ["web-research", TOPIC],
        ["web-research", "--url", ferry_lab.sites[0] + "/pages/x"],
        ["web-research", "   ", "--keyword", "ferry"],
        ["web-research", TOPIC, "--url", "http://a.test/", "--depth", "bottomless"],
        ["web-research", TOPIC, "--url", "http://a.test/", "--format", "poem"],
    ]
    lines = []
    for args in cases:
        invoked = runner.invoke(app, args)
        shown = " ".join(a if a.strip() else repr(a) for a in args)
        lines.append(f"$ assay {shown}\nexit {invoked.exit_code}\n{invoked.output.strip()}\n")
    failing = ["web-research", TOPIC, "--format", "report", "--quiet", *cli_lab_flags(ferry_lab)]
    for path in ("/private/who-pays-for-the-orla-ferry", "/fault/wrong-type"):
        failing += ["--url", ferry_lab.sites[1] + path]
    failing += ["--url", "ftp://ferry.test/timetable"]
    invoked = runner.invoke(app, failing)
    lines.append(f"$ assay web-research (three failing urls)\nexit {invoked.exit_code}\n")
    lines.append(invoked.stdout.strip() + "\n")
    lines.append(invoked.stderr.strip().splitlines()[-1] + "\n")
    check_golden("errors.txt", normalise("\n".join(lines), ferry_lab))
    assert lines[0].splitlines()[1:] == [  # the spec's text, then the flags that give them
        "exit 2",
        "error: topic + urls/keywords required: give a TOPIC and at least one --url URL or "
        "--keyword QUERY (both repeatable)",
    ]
