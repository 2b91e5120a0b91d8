"""Research that answers the question, over the lab: off-topic claims stay out of the
report, and the answer has the question's shape (golden questions)."""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from assay.cli import app
from assay.config import load_settings
from assay.gather.documents import Document
from assay.lab import Lab, serve_lab
from assay.models.testing import ScriptedModel
from assay.protocols.research import ResearchResult, research_async
from tests.cli.test_offline import offline_works
from tests.paths import ROOT

runner = CliRunner()

# One page answers the questions; eight look like it (journals, establishment years).
JOURNALS = {
    "Journal of Example Studies": "The Journal of Example Studies is a peer-reviewed academic "
    "journal covering example studies. It was established in 1991 by the Example Society. "
    "The journal is published quarterly by Acme Press.",
    **{
        f"Journal of {field} Research": f"The Journal of {field} Research is a peer-reviewed "
        f"academic journal. It was established in {1950 + n} by the {field} Association. "
        f"The journal publishes studies on {field.lower()} research every month."
        for n, field in enumerate(
            ("Coastal", "Dental", "Forest", "Glacial", "Harbour", "Island", "Lunar", "Marine")
        )
    },
}


@pytest.fixture(scope="module")
def journals_lab() -> Iterator[Lab]:
    docs = [
        Document(doc_id=f"j{n}", title=title, text=text)
        for n, (title, text) in enumerate(JOURNALS.items())
    ]
    with serve_lab(docs, sites=2, faults=False) as running:
        yield running


def research(lab: Lab, home: Path, question: str) -> ResearchResult:
    settings = load_settings(
        home=home, search="searxng", searxng_url=lab.sites[0], allow_hosts=["127.0.0.0/8"]
    )
    return asyncio.run(research_async(question, settings=settings, sources=5))


def claims(result: ResearchResult) -> list[dict[str, object]]:
    lines = (Path(result.run_dir) / "claims.jsonl").read_text().splitlines()
    return [json.loads(line) for line in lines]


def test_off_topic_claims_stay_in_the_ledger_and_out_of_the_report(
    journals_lab: Lab, isolated_home: Path
) -> None:
    result = research(
        journals_lab, isolated_home, "When was the Journal of Example Studies established?"
    )
    assert result.answer == "1991"
    ledger = claims(result)
    off_topic = [c for c in ledger if not c["relevance"]["relevant"]]  # type: ignore[index]
    assert off_topic, "most hits are other journals: their claims must be judged off-topic"
    assert all(c["relevance"]["method"] == "meaning-v1" for c in ledger)  # type: ignore[index]
    report = Path(result.report or "").read_text()
    presented = set(re.findall(r"\((claim_\d+): ", report))
    assert presented and not presented & {str(c["id"]) for c in off_topic}
    for field in ("Coastal", "Dental", "Forest", "Glacial", "Harbour", "Island", "Lunar"):
        assert f"Journal of {field} Research" not in report.split("## Sources")[0]
    sources = [
        json.loads(x) for x in (Path(result.run_dir) / "sources.jsonl").read_text().splitlines()
    ]
    assert all("relevance" in s for s in sources)
    # claims name their subject: no claim starts with a bare pronoun
    assert not [c for c in ledger if str(c["text"]).startswith(("It ", "The journal "))]
    assert runner.invoke(app, ["verify", result.run_id]).exit_code == 0


def test_a_yes_no_question_starts_with_yes_or_no(journals_lab: Lab, isolated_home: Path) -> None:
    result = research(
        journals_lab, isolated_home, "Is the Journal of Example Studies a peer-reviewed journal?"
    )
    assert result.answer.split(" ")[0].lower() in ("yes", "no")
    assert result.answer.lower() == "yes"


@pytest.mark.skipif(
    offline_works(), reason="tests/cli/test_offline.py runs the same command with no network"
)
def test_the_readme_first_command_prints_a_direct_answer(isolated_home: Path) -> None:
    home = ["--home", str(isolated_home)]
    added = runner.invoke(app, ["index", "add", str(ROOT / "README.md"), str(ROOT / "docs"), *home])
    assert added.exit_code == 0, added.output
    done = runner.invoke(app, ["research", "How does assay verify a claim?", *home])
    assert done.exit_code == 0, done.output
    answer = done.output.split("Answer:", 1)[1].split("\nclaims:", 1)[0]
    assert "No direct answer" not in answer
    assert "verif" in answer.lower() and "claim" in answer.lower()


def test_code_agent_mode_reads_the_files_grep_found(tmp_path: Path, isolated_home: Path) -> None:
    workspace = tmp_path / "repo"
    workspace.mkdir()
    for name in "abcdef":  # alphabetically first, and about something else
        (workspace / f"{name}.md").write_text(f"# Notes {name}\n\nThe garden has {name} roses.\n")
    (workspace / "zz_cache.md").write_text(
        "# Widget cache\n\nThe widget cache keeps 128 entries by default.\n"
    )
    result = asyncio.run(
        research_async("widget cache entries", settings=load_settings(), workspace=workspace)
    )
    urls = [s["url"] for s in result.sources]
    assert urls[0] == "workspace://zz_cache.md"
    assert result.answer.startswith("The widget cache keeps 128 entries")


def test_the_model_sees_snippets_dates_and_the_skills_tactics() -> None:
    from datetime import date

    from assay.protocols.research.policy import AgentState, describe_state
    from assay.protocols.research.skills import condensed

    state = AgentState(topic="Halvorsen Lighthouse", mode="web", today=date(2026, 1, 1),
                       target_sources=3)  # fmt: skip
    state.offered = [("Halvorsen Lighthouse", "http://127.0.0.1/h")]
    state.snippets = {"http://127.0.0.1/h": "Its tower is 41 metres tall. (2024-05-01)"}
    shown = describe_state(state)
    assert "41 metres tall. (2024-05-01)" in shown
    tactics = condensed("search-strategy")
    assert "Fire 3-10 queries in one webSearch call" in tactics and len(tactics) <= 400


def scripted_researcher(request: Any) -> object:
    """Every model step of a research run, answered the way a careful small model would."""
    prompt = request.messages[-1].content
    numbered = dict(re.findall(r"^\[(\d+)\] (.*)$", prompt, flags=re.MULTILINE))
    if "SENTENCES:" in prompt:
        return {"claims": [{"claim": t, "sentence": int(n)} for n, t in numbered.items()][:3]}
    if "EVIDENCE:" in prompt:
        claim = prompt.rsplit("CLAIM: ", 1)[1].strip()
        same = [n for n, text in numbered.items() if text.strip() == claim]
        return {"label": "SUPPORTS", "sentence": int(same[0])} if same else {
            "label": "NOT_ENOUGH_INFO", "sentence": 0}  # fmt: skip
    if "plan the next web search" in request.system:
        return {"missing": "", "queries": []}
    if "short summary" in request.system:
        hit = next((n for n, text in numbered.items() if "1991" in text), "1")
        return {
            "sentences": [
                {"text": numbered[hit], "claims": [int(hit)]},
                {"text": "The journal was founded in 1850 by monks.", "claims": [int(hit)]},
            ]
        }
    if "CLAIMS:" in prompt:
        hit = next((n for n, text in numbered.items() if "1991" in text), None)
        return {"answer": "1991", "claims": [int(hit)]} if hit else {"answer": "", "claims": []}
    if "Searches done: 0" in prompt:
        return {"action": {"action": "web_search", "queries": [
            "Journal of Example Studies", "Journal of Example Studies established", "journal",
        ]}}  # fmt: skip
    if "Offered (not read yet):" in prompt and "sources read: 0" in prompt:
        return {"action": {"action": "read_url", "url": "1"}}
    return {"action": {"action": "finish", "answer": "an unchecked free-text answer"}}


def test_with_a_model_the_answer_and_the_written_summary_are_checked(
    journals_lab: Lab, isolated_home: Path
) -> None:
    settings = load_settings(
        home=isolated_home, search="searxng", searxng_url=journals_lab.sites[0],
        allow_hosts=["127.0.0.0/8"],
    )  # fmt: skip
    model = ScriptedModel(scripted_researcher)
    question = "When was the Journal of Example Studies established?"
    result = asyncio.run(research_async(question, settings=settings, model=model))
    report = Path(result.report or "").read_text()
    summary = report.split("## Findings")[0]
    assert result.answer == "1991"
    assert "1850" not in summary and "1 written sentences were dropped" in summary
    assert re.search(r"established in 1991[^\n]*\(claim_\d+: (?:weak|verified)\)\n", summary)
    assert "unchecked free-text" not in report
    log = [json.loads(x) for x in (Path(result.run_dir) / "run.log.jsonl").read_text().splitlines()]
    # the model said nothing is missing: it named no search (the rule's rounds may follow)
    assert not [e for e in log if e["type"] == "research.round" and e["data"]["by"] == "model"]
    assert runner.invoke(app, ["verify", result.run_id]).exit_code == 0


def test_a_second_search_follows_the_bridge_to_the_answer(isolated_home: Path) -> None:
    pages = {
        "Orange Creeps": "Orange Creeps is a 2010 novel by Ada Lind. The novel Orange Creeps was "
        'published by "Blue Lantern Press" in 2010. Critics praised its dreamlike style.',
        "Blue Lantern Press": "Blue Lantern Press is an independent publishing house in Ohio. "
        "Blue Lantern Press was founded by Mara Quist in 2005. It prints twenty books a year.",
        **{
            f"{name} novel": f"The {name} novel was published in {1990 + n} to mixed reviews. "
            f"Its author wrote it in a small town over six years."
            for n, name in enumerate(("Green", "Red", "Grey", "White"))
        },
    }
    docs = [Document(doc_id=f"p{n}", title=t, text=x) for n, (t, x) in enumerate(pages.items())]
    with serve_lab(docs, sites=2, faults=False) as lab:
        result = research(
            lab, isolated_home, "Who founded the publisher of the novel Orange Creeps?"
        )
    log = [json.loads(x) for x in (Path(result.run_dir) / "run.log.jsonl").read_text().splitlines()]
    rounds = [e["data"] for e in log if e["type"] == "research.round"]
    assert rounds and "Blue Lantern Press" in rounds[0]["missing"]
    assert "## Search rounds" in (Path(result.run_dir) / "plan.md").read_text()
    assert result.answer == "Mara Quist"
