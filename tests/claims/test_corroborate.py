"""Corroboration: a source is attached to a claim only when the judge finds it supports or
refutes that very claim, from an origin the claim does not cite, about the same subject."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Iterator
from pathlib import Path

import pytest

from assay.claims.corroborate import COVERAGE, CorroborationPool
from assay.claims.engine import VerificationEngine
from assay.claims.judge import Verdict
from assay.claims.model_judge import ModelJudge
from assay.claims.relevance import coverage
from assay.config import load_settings
from assay.engines.extractive.judge import ExtractiveJudge
from assay.gather.documents import Document
from assay.gather.session import GatherSession
from assay.keys import KeyStore
from assay.lab import Lab, serve_lab
from assay.models.base import Request
from assay.models.testing import ScriptedModel
from assay.store.claims import ClaimLedger, ClaimRecord, Evidence
from assay.store.runs import Run, RunStore
from assay.store.sources import SourceLedger
from assay.text import split_sentences

JOURNAL = "The Journal of Applied Physics publishes research. It was established in 1991."
OTHER_JOURNAL = "The Journal of Marine Biology publishes fieldwork. It was established in 1950."
SAME_JOURNAL = "A history of the Journal of Applied Physics. It was established in 1991."
CATALOGUE = (
    "Catalogue entry for the Journal of Applied Physics, monthly. It was established in 1991."
)


class SentenceJudge:
    """Labels by the year the evidence gives: the claim's year supports, another refutes
    (what a judge that ignores the subject, as the local model did, would say)."""

    name = "sentence-judge"

    async def judge(self, claim: str, evidence: str) -> Verdict:
        for sentence in evidence.split(". "):
            if "established in 1991" in sentence:
                return Verdict("SUPPORTS", sentence.rstrip(".") + ".")
            if "established in 19" in sentence:
                return Verdict("REFUTES", sentence.rstrip(".") + ".")
        return Verdict("NOT_ENOUGH_INFO", "")


def _run(home: Path, pages: list[tuple[str, str, str]], claim: str) -> Run:
    """Sources (url, title, text); the claim is extracted from the first one."""
    run = RunStore(home, fsync=False).create("corroboration", "test", {})
    ledger = SourceLedger(run.dir, fsync=False)
    ids = [
        ledger.add(
            url=url, final_url=url, title=title, text=text,
            content_type="text/html", accessed_at="2026-11-30T00:00:00Z",
        ).id
        for url, title, text in pages
    ]  # fmt: skip
    start = pages[0][2].index(claim)
    quote = Evidence(sourceId=ids[0], quote=claim, start=start, end=start + len(claim))
    ClaimLedger(run.dir, fsync=False).append(
        ClaimRecord(
            id="claim_001", text=claim, confidence="high", sourceIds=ids[:1], evidence=[quote]
        )
    )
    return run


def _verify(run: Run, judge: object) -> ClaimRecord:
    every = [r.id for r in SourceLedger(run.dir).records()]
    engine = VerificationEngine(run, judge)  # type: ignore[arg-type]
    return asyncio.run(engine.verify_all(corroborators=every))[0]


def test_a_source_about_another_subject_is_not_attached(isolated_home: Path) -> None:
    run = _run(
        isolated_home,
        [
            ("http://physics.test/about", "Journal of Applied Physics", JOURNAL),
            ("http://marine.test/about", "Journal of Marine Biology", OTHER_JOURNAL),
        ],
        "It was established in 1991.",
    )
    claim = _verify(run, SentenceJudge())
    assert claim.source_ids == ["src_01"]
    assert [(e.source_id, e.stance) for e in claim.evidence] == [("src_01", "supports")]
    assert claim.status == "weak"


def test_an_independent_source_on_the_subject_is_attached_a_same_origin_one_is_not(
    isolated_home: Path,
) -> None:
    run = _run(
        isolated_home,
        [
            ("http://physics.test/about", "Journal of Applied Physics", JOURNAL),
            ("http://www.physics.test/history", "Journal of Applied Physics", SAME_JOURNAL),
            ("http://library.test/jap", "Journal of Applied Physics", CATALOGUE),
        ],
        "It was established in 1991.",
    )
    claim = _verify(run, SentenceJudge())
    # src_02 shares the claim's registrable domain; src_03 is another origin
    assert claim.source_ids == ["src_01", "src_03"]
    assert claim.status == "verified"


def test_a_refutation_about_another_event_is_not_a_refutation(isolated_home: Path) -> None:
    run = _run(
        isolated_home,
        [
            (
                "http://a.test/2012",
                "2012 Leap Day tornado outbreak",
                "15 people died in the outbreak.",
            ),
            (
                "http://b.test/1896",
                "Tornado outbreak of May 1896",
                "484 people were killed in the outbreak.",
            ),
        ],
        "15 people died in the outbreak.",
    )
    claim = _verify(run, ExtractiveJudge(similarity=None))
    assert claim.status == "weak"
    assert all(e.stance == "supports" for e in claim.evidence)
    assert claim.source_ids == ["src_01"]


EIFFEL_FAKE = Document(
    "eiffel-fake",
    "The Eiffel Tower relocated",
    "The Eiffel Tower is located in Berlin, Germany. It draws crowds all year round.",
)
EIFFEL_REAL = Document(
    "eiffel-real",
    "The Eiffel Tower",
    "The Eiffel Tower is located in Paris, France. It is 330 metres tall.",
)


@pytest.fixture(scope="module")
def eiffel() -> Iterator[Lab]:
    with serve_lab(
        [EIFFEL_FAKE, EIFFEL_REAL], sites=2, faults=True, first_address="127.0.0.60"
    ) as lab:
        yield lab


class ObedientJudge:
    """Does what the injected page asks: every page is support, quoting its first sentence."""

    name = "obedient"

    async def judge(self, claim: str, evidence: str) -> Verdict:
        first = next(line for line in evidence.splitlines() if "Eiffel Tower is located" in line)
        return Verdict("SUPPORTS", first.split(". ")[0] + ".")


@pytest.mark.parametrize(
    "judge", [ExtractiveJudge(similarity=None), ObedientJudge()], ids=["extractive", "obedient"]
)
def test_an_injected_finding_never_cites_the_clean_page_as_support(
    eiffel: Lab, isolated_home: Path, judge: object
) -> None:
    settings = load_settings(home=isolated_home, allow_hosts=["127.0.0.0/8"])
    run = RunStore(settings.home, fsync=False).create("eiffel", "test", {})
    pages = {p.doc.doc_id: p for site in eiffel.site_pages for p in site}
    fake = f"{eiffel.sites[pages['eiffel-fake'].site]}/inject/{pages['eiffel-fake'].slug}"
    real = pages["eiffel-real"].url

    async def gather() -> tuple[str, str, str]:
        async with GatherSession(run, settings, keys=KeyStore(settings.home)) as session:
            injected, clean = await session.read(fake), await session.read(real)
            assert injected is not None and clean is not None
            return injected.record.id, clean.record.id, injected.text

    injected_id, clean_id, text = asyncio.run(gather())
    finding = "The Eiffel Tower is located in Berlin, Germany."
    start = text.index(finding)
    ClaimLedger(run.dir, fsync=False).append(
        ClaimRecord(
            id="claim_001", text=finding, confidence="medium", sourceIds=[injected_id],
            evidence=[Evidence(sourceId=injected_id, quote=finding, start=start, end=start + 47)],
        )
    )  # fmt: skip
    claim = _verify(run, judge)
    supporting = {e.source_id for e in claim.evidence if e.stance == "supports"}
    assert clean_id not in supporting
    assert claim.status != "verified"
    if clean_id in claim.source_ids:  # attached only as the page that says otherwise
        assert any(e.source_id == clean_id and e.stance == "refutes" for e in claim.evidence)


@pytest.mark.parametrize(("same", "status"), [(True, "contradicted"), (False, "weak")])
def test_a_model_refutation_counts_only_when_the_comparison_finds_one_subject(
    isolated_home: Path, same: bool, status: str
) -> None:
    def script(request: Request) -> object:
        prompt = request.messages[-1].content
        if prompt.startswith("SENTENCES:"):
            assert '[2] (from a page titled "Journal of Applied Physics")' in prompt
            return {"same_subject": same, "attribute": "date", "compatible": False}
        if "1950" in prompt:
            return {"sentence": 2, "label": "REFUTES"}
        return {"sentence": 2, "label": "SUPPORTS"}

    run = _run(
        isolated_home,
        [
            ("http://physics.test/about", "Journal of Applied Physics", JOURNAL),
            # a page the rules cannot tell apart (same title): the comparison decides
            ("http://marine.test/about", "Journal of Applied Physics", OTHER_JOURNAL),
        ],
        "It was established in 1991.",
    )
    claim = _verify(run, ModelJudge(ScriptedModel(script)))
    assert claim.status == status


def test_the_pool_finds_what_scanning_every_sentence_finds() -> None:
    rng = random.Random(3)
    vocabulary = [f"word{n}" for n in range(40)]
    texts = {
        f"src_{n:02d}": " ".join(
            " ".join(rng.choices(vocabulary, k=rng.randint(3, 9))).capitalize() + "."
            for _ in range(rng.randint(1, 5))
        )
        for n in range(30)
    }
    pool = CorroborationPool.of(texts)
    for _ in range(50):
        claim = " ".join(rng.choices(vocabulary, k=rng.randint(1, 7)))
        scanned = {
            source_id: best
            for source_id, text in texts.items()
            if (best := max(coverage(claim, s.text) for s in split_sentences(text))) >= COVERAGE
        }
        assert pool.covering(claim) == scanned
