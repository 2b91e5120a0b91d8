"""Pages of one template about different subjects, over the lab.

A quote about one subject neither supports nor contradicts a claim about another (a place
is not verified by its neighbour's page, an aircraft not refuted by its sibling's); two
subjects' values for one slot are no conflict; one subject's two values are; and one
subject's fact on two independent pages still corroborates, so none of this holds because
nothing is ever attached. The pages are real encyclopedia text (tests/template_pages.py:
HotpotQA corpus, CC BY-SA 4.0; PopQA corpus, MIT).
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from assay.claims.conflict import conflict
from assay.claims.engine import VerificationEngine
from assay.claims.model_judge import ModelJudge
from assay.config import load_settings
from assay.gather.documents import Document
from assay.gather.session import GatherSession
from assay.keys import KeyStore
from assay.lab import Lab, serve_lab
from assay.models.base import Request
from assay.models.testing import ScriptedModel
from assay.protocols.deep import deep_research_async
from assay.protocols.deep.groups import group_facts
from assay.protocols.web_research.results import SourceFindings
from assay.protocols.web_research.synthesis import Synthesis, find_conflicts
from assay.store.claims import ClaimLedger, ClaimRecord, Evidence
from assay.store.runs import Run, RunStore
from assay.store.sources import SourceLedger, SourceRecord
from tests.template_pages import (
    GYLDENDAL_1925,
    GYLDENDAL_ALTERED,
    KOOLAULOA_DISTRICT,
    PAGES,
    first,
    text_of,
)

# Two subjects, one template: each pair fills the same slots with different values.
SIBLINGS = [
    ("Kahuku, Hawaii", "Laie, Hawaii"),
    ("Heinkel HD 32", "Heinkel HD 36"),
    ("Mercyful Fate", "Volbeat"),
    ("Linden Ashby", "Patrick O'Brien Demsey"),
    ("Two Dollar Radio", "Little Caesars"),
]
SIBLING_IDS = ["places", "aircraft", "bands", "actors", "companies"]
TOPICS = [  # what both pages answer
    "census-designated places of the Koolauloa District",
    "Heinkel trainer aircraft developed in Germany",
    "Danish heavy metal bands from Copenhagen",
    "American actors",
    "when the company was founded",
]


def _deep(home: Path, out: Path, topic: str, pages: list[tuple[str, str]]) -> tuple[str, Run]:
    """Deep research on ``topic`` over ``pages`` (title, text), one lab site (origin) each."""
    docs = [Document(f"d{n}", title, text) for n, (title, text) in enumerate(pages)]
    with serve_lab(docs, sites=len(docs), faults=False, first_address="127.0.0.110") as lab:
        settings = load_settings(
            home=home, search="searxng", searxng_url=lab.sites[0], allow_hosts=["127.0.0.0/8"]
        )
        result = asyncio.run(
            deep_research_async(topic, settings=settings, max_directions=1, output=out, echo=None)
        )
    return Path(result.report).read_text(), RunStore(home, fsync=False).open(result.run_id)


def _conflict_lines(report: str) -> list[str]:
    return [line for line in report.splitlines() if "Sources conflict" in line]


def _titles(run: Run) -> dict[str, str]:
    return {r.id: r.title or "" for r in run.source_ledger.records()}


@pytest.mark.parametrize(
    ("a", "b", "topic"), [(*p, t) for p, t in zip(SIBLINGS, TOPICS, strict=True)], ids=SIBLING_IDS
)
def test_deep_research_takes_no_quote_of_one_subject_for_another(
    isolated_home: Path, tmp_path: Path, a: str, b: str, topic: str
) -> None:
    report, run = _deep(isolated_home, tmp_path, topic, [(a, text_of(a)), (b, text_of(b))])
    titles = _titles(run)
    claims = run.claim_ledger.claims()
    assert len(claims) >= 2
    for claim in claims:
        pages = {titles[e.source_id] for e in claim.evidence}
        assert len(pages) == 1, f"{claim.text!r} quotes {sorted(pages)}"
        assert claim.status not in ("verified", "contradicted"), claim.text
    assert not _conflict_lines(report)
    assert "merged; their sources agree" not in report


def test_deep_research_reports_one_publishers_two_founding_years_as_a_conflict(
    isolated_home: Path, tmp_path: Path
) -> None:
    report, _ = _deep(
        isolated_home,
        tmp_path,
        "Gyldendal publishing house",
        [("Gyldendal", text_of("Gyldendal")), ("Gyldendal", GYLDENDAL_ALTERED)],
    )
    assert any("1770" in line and "1925" in line for line in _conflict_lines(report))
    assert not re.search(r"Founded in (1770|1925).*their sources agree", report)


def test_deep_research_corroborates_one_place_on_two_independent_pages(
    isolated_home: Path, tmp_path: Path
) -> None:
    _, run = _deep(
        isolated_home,
        tmp_path,
        "Kahuku census-designated place",
        [("Kahuku, Hawaii", text_of("Kahuku, Hawaii")), ("Koolauloa District", KOOLAULOA_DISTRICT)],
    )
    status = {c.text: c.status for c in run.claim_ledger.claims()}
    assert status[first("Kahuku, Hawaii")] == "verified"


def test_deep_research_verifies_no_place_with_its_neighbours_page(
    isolated_home: Path, tmp_path: Path
) -> None:
    # The district page alone says Laie's sentence; the Kahuku page's is not its support.
    _, run = _deep(
        isolated_home,
        tmp_path,
        "Koolauloa District census-designated places",
        [("Kahuku, Hawaii", text_of("Kahuku, Hawaii")), ("Koolauloa District", KOOLAULOA_DISTRICT)],
    )
    laie = next(c for c in run.claim_ledger.claims() if c.text == first("Laie, Hawaii"))
    assert laie.status != "verified"
    assert {e.quote for e in laie.evidence if e.stance == "supports"} == {first("Laie, Hawaii")}


# --- the model judge: a model that ignores the subject --------------------------------


LAB_PAGES = [
    *((title, text_of(title)) for title in PAGES),
    ("Koolauloa District", KOOLAULOA_DISTRICT),
    ("Gyldendal", GYLDENDAL_ALTERED),
]


@pytest.fixture(scope="module")
def template_lab() -> Iterator[Lab]:
    docs = [Document(f"page{n}", title, text) for n, (title, text) in enumerate(LAB_PAGES)]
    with serve_lab(docs, sites=len(docs), faults=False, first_address="127.0.0.120") as lab:
        yield lab


def _gathered(lab: Lab, home: Path, texts: list[str]) -> tuple[Run, list[str]]:
    """A run that read the lab pages with ``texts`` through the fetcher; their source ids."""
    settings = load_settings(home=home, allow_hosts=["127.0.0.0/8"])
    run = RunStore(settings.home, fsync=False).create("template pages", "test", {})
    urls = [next(url for url, doc in lab.pages if doc.text == text) for text in texts]

    async def read() -> list[str]:
        async with GatherSession(run, settings, keys=KeyStore(settings.home)) as session:
            read = [await session.read(url) for url in urls]
        return [page.record.id for page in read if page is not None]

    ids = asyncio.run(read())
    assert len(ids) == len(texts)
    return run, ids


def _claim(run: Run, claim: str, quote: str, source_ids: list[str]) -> None:
    """The claim, read from the first source, whose ``quote`` it cites."""
    text = SourceLedger(run.dir).read_snapshot(SourceLedger(run.dir).get(source_ids[0]))
    start = text.index(quote)
    ClaimLedger(run.dir, fsync=False).append(
        ClaimRecord(
            id="claim_001", text=claim, confidence="high", sourceIds=source_ids,
            evidence=[Evidence(sourceId=source_ids[0], quote=quote, start=start,
                               end=start + len(quote))],
        )
    )  # fmt: skip


def careless_model(label: str, marker: str, own: str) -> ScriptedModel:
    """Labels the sentence holding ``marker`` ``label`` and the one holding ``own`` (the
    claim's quote) SUPPORTS, on any page, and finds one subject in any comparison."""

    def script(request: Request) -> object:
        prompt = request.messages[-1].content
        if prompt.startswith("SENTENCES:"):
            return {"same_subject": True, "attribute": "date", "compatible": False}
        numbered = re.findall(r"^\[(\d+)\] (.*)$", prompt, flags=re.MULTILINE)
        for wanted, given in ((own, "SUPPORTS"), (marker, label)):
            for number, sentence in numbered:
                if wanted in sentence:
                    return {"sentence": int(number), "label": given}
        return {"sentence": 0, "label": "NOT_ENOUGH_INFO"}

    return ScriptedModel(script)


def _verify(run: Run, model: ScriptedModel, judged: str) -> ClaimRecord:
    """The claim verified with every source offered; ``judged``: a sentence the model must
    have been shown (so the page the test is about was judged at all)."""
    every = [r.id for r in run.source_ledger.records()]
    engine = VerificationEngine(run, ModelJudge(model))
    checked = asyncio.run(engine.verify_all(corroborators=every))[0]
    assert any(judged in r.messages[-1].content for r in model.requests)
    return checked


@pytest.mark.parametrize("cited", [False, True], ids=["corroborator", "cited"])
def test_a_model_support_from_a_neighbours_page_is_not_taken(
    template_lab: Lab, isolated_home: Path, cited: bool
) -> None:
    kahuku, laie = text_of("Kahuku, Hawaii"), text_of("Laie, Hawaii")
    run, (own, other) = _gathered(template_lab, isolated_home, [kahuku, laie])
    claim = first("Kahuku, Hawaii")
    _claim(run, claim, claim, [own, other] if cited else [own])
    model = careless_model("SUPPORTS", "Laie is a census-designated place", "Kahuku is a")
    checked = _verify(run, model, first("Laie, Hawaii"))
    assert {e.source_id for e in checked.evidence if e.stance == "supports"} == {own}
    assert checked.status != "verified"


# A claim about the first page's subject, as an extractor words it, and its quote there.
SIBLING_CLAIMS = [
    ("Heinkel HD 32", "Heinkel HD 36", "The Heinkel HD 32 was a trainer developed in Germany."),
    ("Mercyful Fate", "Volbeat", "Mercyful Fate is a Danish heavy metal band formed in 1981."),
    ("Linden Ashby", "Patrick O'Brien Demsey", "Linden Ashby is an American actor born in 1960."),
]


@pytest.mark.parametrize(("a", "b", "claim"), SIBLING_CLAIMS, ids=SIBLING_IDS[1:4])
def test_a_model_refutation_from_a_siblings_page_is_not_taken(
    template_lab: Lab, isolated_home: Path, a: str, b: str, claim: str
) -> None:
    run, (own, _) = _gathered(template_lab, isolated_home, [text_of(a), text_of(b)])
    _claim(run, claim, first(a), [own])
    model = careless_model("REFUTES", first(b)[:30], first(a)[:30])
    checked = _verify(run, model, first(b))
    assert checked.status != "contradicted"
    assert all(e.source_id == own for e in checked.evidence)


def test_a_model_refutation_of_one_subject_stands(template_lab: Lab, isolated_home: Path) -> None:
    run, (own, _) = _gathered(
        template_lab, isolated_home, [text_of("Gyldendal"), GYLDENDAL_ALTERED]
    )
    claim = PAGES["Gyldendal"][1]
    _claim(run, claim, claim, [own])
    model = careless_model("REFUTES", "Founded in 1925", "Founded in 1770")
    checked = _verify(run, model, GYLDENDAL_1925)
    assert checked.status == "contradicted"


def test_a_model_support_from_an_independent_page_on_the_subject_corroborates(
    template_lab: Lab, isolated_home: Path
) -> None:
    run, (own, other) = _gathered(
        template_lab, isolated_home, [text_of("Kahuku, Hawaii"), KOOLAULOA_DISTRICT]
    )
    claim = "Kahuku is a census-designated place in the Koolauloa District."
    _claim(run, claim, first("Kahuku, Hawaii"), [own])
    model = careless_model("SUPPORTS", "Kahuku is a", "Kahuku is a")
    checked = _verify(run, model, first("Laie, Hawaii"))
    assert {e.source_id for e in checked.evidence if e.stance == "supports"} == {own, other}
    assert checked.status == "verified"


# --- conflicts between claims ----------------------------------------------------------

# What an extractor keeps of a page's opening sentence: the slot its template fills.
SHORT = {
    "Heinkel HD 32": "The Heinkel HD 32 was a trainer developed in Germany in the 1920s.",
    "Heinkel HD 36": "The Heinkel HD 36 was a trainer developed in Germany in the 1920s.",
    "Mercyful Fate": "Mercyful Fate is a Danish heavy metal band from Copenhagen, formed in 1981.",
    "Volbeat": first("Volbeat"),
    "Two Dollar Radio": "The company was founded in 2005.",
    "Little Caesars": "The company was founded in 1959.",
}
STATEMENTS = [(a, first(a), b, first(b)) for a, b in SIBLINGS] + [
    (a, SHORT[a], b, SHORT[b]) for a, b in SIBLINGS[1:3] + SIBLINGS[4:]
]


@pytest.mark.parametrize(
    ("a", "left", "b", "right"),
    STATEMENTS,
    ids=[*SIBLING_IDS, "aircraft-short", "bands-short", "companies-short"],
)
def test_two_subjects_values_are_no_conflict(a: str, left: str, b: str, right: str) -> None:
    assert conflict(left, right, context_a=a, context_b=b) is None


def test_one_subjects_two_values_are_a_conflict() -> None:
    found = conflict(
        PAGES["Gyldendal"][1], GYLDENDAL_1925, context_a="Gyldendal", context_b="Gyldendal"
    )
    assert found is not None and (found.left, found.right) == ("1770", "1925")


def _fact(number: int, text: str) -> ClaimRecord:
    return ClaimRecord(
        id=f"claim_{number:03d}", text=text, confidence="medium", sourceIds=[f"src_{number:02d}"]
    )


@pytest.mark.parametrize(
    ("second_page", "groups", "conflicting"),
    [("Little Caesars", 2, False), ("Two Dollar Radio", 1, True)],
    ids=["two-companies", "one-company"],
)
def test_deep_research_reads_each_fact_with_its_page_title(
    second_page: str, groups: int, conflicting: bool
) -> None:
    found = group_facts(
        [_fact(1, SHORT["Two Dollar Radio"]), _fact(2, SHORT["Little Caesars"])],
        {"claim_001": "Two Dollar Radio", "claim_002": second_page},
    )
    assert len(found) == groups
    assert any(g.conflict for g in found) == conflicting


def _web_synthesis(claims: list[tuple[str, str]]) -> Synthesis:
    """Web research's synthesis of claims (page title, claim), each from its own page."""
    findings, records = [], {}
    for n, (title, text) in enumerate(claims, start=1):
        url = f"http://127.0.0.{n}/page"
        record = SourceRecord(
            id=f"src_{n:02d}", url=url, final_url=url, title=title,
            snapshot=f"snapshots/{n}.md", accessed_at="2026-12-01T00:00:00.000Z",
            sha256="0" * 64, domain=f"127.0.0.{n}", content_type="text/html",
        )  # fmt: skip
        records[f"claim_{n:03d}"] = ClaimRecord(
            id=f"claim_{n:03d}", text=text, confidence="medium", sourceIds=[record.id],
            status="weak",
            evidence=[Evidence(sourceId=record.id, quote=text, start=0, end=len(text))],
        )  # fmt: skip
        findings.append(SourceFindings(record, claim_ids=[f"claim_{n:03d}"]))
    return Synthesis("pages", findings, records, [], [], "low", "test", "2026-12-01T00:00:00Z")


@pytest.mark.parametrize(("a", "b"), SIBLINGS[1:3], ids=SIBLING_IDS[1:3])
def test_web_research_flags_no_conflict_between_two_subjects(a: str, b: str) -> None:
    assert find_conflicts(_web_synthesis([(a, SHORT[a]), (b, SHORT[b])])) == []


def test_web_research_flags_one_subjects_two_founding_years() -> None:
    claim = "Mercyful Fate is a Danish heavy metal band from Copenhagen, formed in 1981."
    other = claim.replace("1981", "1982")
    found = find_conflicts(_web_synthesis([("Mercyful Fate", claim), ("Mercyful Fate", other)]))
    assert len(found) == 1
