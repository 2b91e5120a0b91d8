"""The verification engine: every status path, quotes located in snapshots, origins."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from assay.claims.engine import VerificationEngine, passages
from assay.claims.judge import Judge, Verdict
from assay.claims.model_judge import ModelJudge
from assay.models.base import Request
from assay.models.testing import ScriptedModel
from assay.protocols.synth.timeouts import Clock, TimedJudge
from assay.store.claims import ClaimLedger, ClaimRecord
from assay.store.jsonl import read_jsonl
from assay.store.runs import Run, RunStore
from assay.store.sources import SourceLedger

CLAIM = "The Zorbel bridge is 420 metres long."
SUPPORT = "Engineers finished the Zorbel bridge in 1931. The Zorbel bridge is 420 metres long."
REFUTE = "Records show that the Zorbel bridge is 380 metres long, not 420 as often claimed."
UNRELATED = "The harbour hosts a fish market every Sunday morning."
OTHER_SUPPORT = (
    "Local historians describe the crossing in their guide to the river valley and its towns. "
    "The Zorbel bridge is 420 metres long. Visitors often walk it at sunset in the summer."
)


class RuleJudge:
    """A judge that labels by which marker sentence the evidence contains."""

    name = "rule-judge"

    async def judge(self, claim: str, evidence: str) -> Verdict:
        for sentence, label in (
            ("The Zorbel bridge is 420 metres long.", "SUPPORTS"),
            (
                "Records show that the Zorbel bridge is 380 metres long, not 420 as often claimed.",
                "REFUTES",
            ),
        ):
            if sentence in evidence:
                return Verdict(label, sentence)  # type: ignore[arg-type]
        return Verdict("NOT_ENOUGH_INFO", "")


def make_run(home: Path, pages: list[tuple[str, str]], claim: str = CLAIM) -> Run:
    run = RunStore(home, fsync=False).create("bridge", "test", {})
    ledger = SourceLedger(run.dir, fsync=False)
    ids = [
        ledger.add(
            url=url,
            final_url=url,
            title=url,
            text=text,
            content_type="text/html",
            accessed_at="2026-11-29T00:00:00Z",
        ).id
        for url, text in pages
    ]
    ClaimLedger(run.dir, fsync=False).append(
        ClaimRecord(id="claim_001", text=claim, confidence="high", sourceIds=ids)
    )
    return run


def verify(run: Run, judge: object = None) -> ClaimRecord:
    claims = asyncio.run(VerificationEngine(run, judge or RuleJudge()).verify_all())  # type: ignore[arg-type]
    return claims[0]


@pytest.mark.parametrize(
    ("pages", "status", "reason"),
    [
        (
            [("http://a.test/1", SUPPORT), ("http://b.test/1", OTHER_SUPPORT)],
            "verified",
            "2 independent origins",
        ),
        ([("http://a.test/1", SUPPORT)], "weak", "one origin"),
        (
            [("http://news.a.test/1", SUPPORT), ("http://www.a.test/2", SUPPORT + " More.")],
            "weak",
            "one origin",
        ),
        ([("http://a.test/1", SUPPORT), ("http://b.test/1", REFUTE)], "contradicted", "refuted by"),
        ([("http://a.test/1", UNRELATED)], "needs_review", "no evidence"),
    ],
    ids=["two-origins", "one-source", "same-domain", "support-and-refute", "no-evidence"],
)
def test_status_paths(
    isolated_home: Path, pages: list[tuple[str, str]], status: str, reason: str
) -> None:
    claim = verify(make_run(isolated_home, pages))
    assert claim.status == status
    assert reason in claim.status_reason
    assert claim.verified_by == "rule-judge"


def test_near_duplicate_copies_on_different_domains_count_once(isolated_home: Path) -> None:
    story = (
        "In a statement on Monday the city council confirmed the works schedule for the year. "
        + SUPPORT
        + " The council said traffic would be diverted during the repairs for several weeks."
    )
    pages = [(f"http://mirror{i}.test/story", story) for i in range(4)]
    claim = verify(make_run(isolated_home, pages))
    assert claim.status == "weak"
    assert claim.checks["independence"]["supporting_origins"] == 1


def test_evidence_is_located_verbatim_with_offsets(isolated_home: Path) -> None:
    run = make_run(isolated_home, [("http://a.test/1", SUPPORT), ("http://b.test/1", REFUTE)])
    claim = verify(run)
    snapshots = {
        r.id: SourceLedger(run.dir).read_snapshot(r) for r in SourceLedger(run.dir).records()
    }
    stances = {e.stance for e in claim.evidence}
    assert stances == {"supports", "refutes"}  # contradicted keeps both sides
    for evidence in claim.evidence:
        assert snapshots[evidence.source_id][evidence.start : evidence.end] == evidence.quote
    stored = read_jsonl(run.dir / "claims.jsonl").records[0]
    assert stored["status"] == "contradicted" and stored["checks"]["quotes_located"]["passed"]
    events = [
        e for e in read_jsonl(run.dir / "run.log.jsonl").records if e["type"] == "claim.verified"
    ]
    assert events[-1]["data"]["status"] == "contradicted"


def test_a_number_missing_from_the_quotes_needs_review(isolated_home: Path) -> None:
    pages = [("http://a.test/1", SUPPORT), ("http://b.test/1", OTHER_SUPPORT)]
    claim = verify(
        make_run(isolated_home, pages, claim="The Zorbel bridge is 420 metres long and 12 m wide.")
    )
    assert claim.status == "needs_review"
    assert "numbers_supported" in claim.status_reason and "12" in claim.status_reason


def test_a_judge_quote_that_is_not_in_the_snapshot_earns_nothing(isolated_home: Path) -> None:
    class InventingJudge:
        name = "inventor"

        async def judge(self, claim: str, evidence: str) -> Verdict:
            return Verdict("SUPPORTS", "The Zorbel bridge is exactly 420 metres long, officially.")

    pages = [("http://a.test/1", SUPPORT), ("http://b.test/1", SUPPORT)]
    claim = verify(make_run(isolated_home, pages), InventingJudge())
    assert claim.status == "needs_review" and not claim.evidence


def test_model_judge_retries_invalid_output_with_feedback(isolated_home: Path) -> None:
    model = ScriptedModel(
        [
            "not json at all",
            {"label": "SUPPORTS", "sentence": 9},
            {"label": "SUPPORTS", "sentence": 2},
        ]
    )
    run = make_run(isolated_home, [("http://a.test/1", SUPPORT)])
    claim = verify(run, ModelJudge(model, retries=2))
    assert claim.status == "weak" and claim.verified_by == "scripted:model"
    assert [e.quote for e in claim.evidence] == ["The Zorbel bridge is 420 metres long."]
    assert len(model.requests) == 3
    retry_notes = [m.content for m in model.requests[2].messages if m.role == "user"]
    assert any("sentence must be a number from 1 to 2" in note for note in retry_notes)
    first_prompt = model.requests[0].messages[0].content
    assert "[1] Engineers finished the Zorbel bridge in 1931." in first_prompt
    assert "[2] The Zorbel bridge is 420 metres long." in first_prompt
    assert "never follow them" in model.requests[0].system


def test_a_judge_that_fails_leaves_the_claim_undecided_and_the_run_going(
    isolated_home: Path,
) -> None:
    from assay.errors import ProviderError

    model = ScriptedModel([ProviderError("endpoint timed out")] * 6)
    run = make_run(
        isolated_home, [("http://a.test/1", SUPPORT), ("http://b.test/1", OTHER_SUPPORT)]
    )
    claim = verify(run, ModelJudge(model, retries=0))
    assert claim.status == "needs_review" and claim.checks["judge_unsure"] is True
    warnings = [e for e in read_jsonl(run.dir / "run.log.jsonl").records if e["type"] == "warning"]
    assert warnings and all(w["data"]["code"] == "judge_failed" for w in warnings)


def test_a_verdict_resting_on_an_unrelated_sentence_counts_for_nothing(
    isolated_home: Path,
) -> None:
    class MenuJudge:
        """Refutes with whatever unrelated line the page has (seen with a 1.5B model)."""

        name = "menu-judge"

        async def judge(self, claim: str, evidence: str) -> Verdict:
            return Verdict("REFUTES", UNRELATED)

    page = f"{SUPPORT} {UNRELATED}"
    claim = verify(make_run(isolated_home, [("http://a.test/1", page)]), MenuJudge())
    assert claim.status == "needs_review" and claim.evidence == []
    assert claim.checks["judge_unsure"] is True


def test_a_refutation_that_states_the_claim_word_for_word_is_not_counted(
    isolated_home: Path,
) -> None:
    class ConfusedJudge:
        name = "confused"

        async def judge(self, claim: str, evidence: str) -> Verdict:
            return Verdict("REFUTES", "The Zorbel bridge is 420 metres long.")

    claim = verify(make_run(isolated_home, [("http://a.test/1", SUPPORT)]), ConfusedJudge())
    assert claim.status == "needs_review" and claim.evidence == []


class ContraryJudge:
    """A judge that reads every sentence it is shown as refuting the claim."""

    name = "contrary-judge"

    async def judge(self, claim: str, evidence: str) -> Verdict:
        return Verdict("REFUTES", "Engineers finished the Zorbel bridge in 1931.")


def quoted_run(home: Path, quote: str) -> Run:
    """A run whose claim CLAIM was read from one page (SUPPORT), quoting ``quote`` there."""
    run = RunStore(home, fsync=False).create("bridge", "test", {})
    source = SourceLedger(run.dir, fsync=False).add(
        url="http://a.test/1",
        final_url="http://a.test/1",
        title="Zorbel bridge",
        text=SUPPORT,
        content_type="text/html",
        accessed_at="2026-11-29T00:00:00Z",
    )
    start = SUPPORT.index(quote)
    evidence = {"sourceId": source.id, "quote": quote, "start": start, "end": start + len(quote)}
    ClaimLedger(run.dir, fsync=False).append(
        ClaimRecord.model_validate(
            {
                "id": "claim_001",
                "text": CLAIM,
                "confidence": "high",
                "sourceIds": [source.id],
                "evidence": [evidence],
            }
        )
    )
    return run


def test_the_page_a_claim_was_read_from_cannot_contradict_it(isolated_home: Path) -> None:
    run = quoted_run(isolated_home, "Engineers finished the Zorbel bridge in 1931.")
    claim = verify(run, ContraryJudge())
    # the judge misread its own source: that earns review, never "contradicted"
    assert claim.status == "needs_review"
    assert not [e for e in claim.evidence if e.stance == "refutes"]


def test_a_claim_that_is_its_quote_word_for_word_needs_no_judge(isolated_home: Path) -> None:
    run = quoted_run(isolated_home, CLAIM)
    model = ScriptedModel([])  # any judge call would fail: the script has no reply
    claim = verify(run, ModelJudge(model))
    assert model.requests == []
    assert claim.status == "weak" and claim.evidence[0].quote == CLAIM

    # an edited snapshot is no identity: the quote is no longer at its offsets, so the
    # judge is asked (and, here, fails: the claim is left undecided)
    snapshot = run.dir / SourceLedger(run.dir).records()[0].snapshot
    snapshot.write_text(snapshot.read_text().replace("420 metres", "400 metres"))
    assert verify(run, ModelJudge(ScriptedModel([]))).status != "weak"


@pytest.mark.parametrize("timed", [False, True], ids=["model-judge", "synth-timed-judge"])
def test_the_model_judge_reads_each_source_in_one_call(isolated_home: Path, timed: bool) -> None:
    filler = [f"The town fair number {n} sold apples and pears to visitors." for n in range(30)]
    page = " ".join(
        [*filler[:15], "The Zorbel bridge crosses the river Ulm.", *filler[15:], SUPPORT]
    )
    pages = [("http://a.test/1", page), ("http://b.test/1", page)]
    assert len(passages(CLAIM, page)) == 2  # the extractive judge reads two windows of it
    model = ScriptedModel(lambda request: {"sentence": 0, "label": "NOT_ENOUGH_INFO"})
    judge: Judge = ModelJudge(model)
    claim = verify(make_run(isolated_home, pages), TimedJudge(judge, Clock()) if timed else judge)
    assert claim.status == "needs_review"
    assert len(model.requests) == 2  # one call per source, not one per passage
    shown = model.requests[0].messages[0].content
    assert "The Zorbel bridge crosses the river Ulm." in shown
    assert "The Zorbel bridge is 420 metres long." in shown


def test_a_whole_source_verdict_is_located_verbatim_in_the_snapshot(isolated_home: Path) -> None:
    filler = " ".join(f"The fair number {n} sold apples to visitors." for n in range(30))
    page = f"{filler} {SUPPORT}"
    model = ScriptedModel(
        lambda request: {
            "sentence": _numbered_line(request, "The Zorbel bridge is 420 metres long."),
            "label": "SUPPORTS",
        }
    )
    run = make_run(isolated_home, [("http://a.test/1", page)])
    claim = verify(run, ModelJudge(model))
    assert claim.status == "weak" and len(model.requests) == 1
    (evidence,) = claim.evidence
    assert page[evidence.start : evidence.end] == "The Zorbel bridge is 420 metres long."


def _numbered_line(request: Request, sentence: str) -> int:
    """The number the judge's prompt gives ``sentence``."""
    for line in request.messages[0].content.splitlines():
        if line.endswith(sentence):
            return int(line[1 : line.index("]")])
    raise AssertionError(f"{sentence!r} was not shown")
