"""Deep research's contradictions over the lab: one person's two birth dates are a conflict
shown with both sides; two different events' death tolls are not."""

from __future__ import annotations

import asyncio
from pathlib import Path

from assay.config import load_settings
from assay.gather.documents import Document
from assay.lab import serve_lab
from assay.protocols.deep import deep_research_async


def _report(topic: str, texts: list[str], first: str, home: Path, out: Path) -> str:
    docs = [
        Document(doc_id=f"d{n}", title=f"{topic} profile {n}", text=text, url=None)
        for n, text in enumerate(texts)
    ]
    with serve_lab(docs, sites=2, faults=False, first_address=first) as lab:
        settings = load_settings(
            home=home, search="searxng", searxng_url=lab.sites[0], allow_hosts=["127.0.0.0/8"]
        )
        result = asyncio.run(
            deep_research_async(topic, settings=settings, max_directions=1, output=out, echo=None)
        )
    return Path(result.report).read_text()


def test_one_persons_two_birth_dates_are_a_conflict(isolated_home: Path, tmp_path: Path) -> None:
    text = _report(
        "Alan Mercer",
        [
            "Alan Mercer is a composer of film music. Alan Mercer was born on 30 July 1970 "
            "in London.",
            "Alan Mercer wrote three symphonies for the radio orchestra. The composer Alan "
            "Mercer, who also taught harmony, was born on 12 March 1975 in Toronto, Canada.",
        ],
        "127.0.0.34",
        isolated_home,
        tmp_path,
    )
    conflict = next(line for line in text.splitlines() if "Sources conflict" in line)
    assert "30 July 1970" in conflict and "12 March 1975" in conflict


def test_two_events_death_tolls_are_not_a_conflict(isolated_home: Path, tmp_path: Path) -> None:
    text = _report(
        "Tornado outbreak",
        [
            "The Leap Day outbreak struck the Midwest. 15 people died in the 2012 Leap Day "
            "tornado outbreak.",
            "The outbreak of May 1896 struck the Great Plains. 484 people were killed in the "
            "May 1896 tornado outbreak.",
        ],
        "127.0.0.36",
        isolated_home,
        tmp_path,
    )
    assert "15 people died" in text and "484 people were killed" in text
    assert not any(
        "15 people" in line and "484 people" in line
        for line in text.splitlines()
        if "Sources conflict" in line
    )
    assert "contradicted" not in text
