"""What the report page shows around the report itself, read from the run's JSON files:
the answer card (the ``research.answer`` event, or the best-checked claims of a protocol
that gives no short answer), the verification summary and the sources panel. The history
page's comparison uses the same answer card."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from urllib.parse import urlsplit

from assay.events import AnswerGiven
from assay.statuses import CLAIM_STATUSES
from assay.store.claims import ClaimLedger, ClaimRecord
from assay.store.runs import Run
from assay.store.sources import SourceLedger, SourceRecord

STATUS_LABELS = {
    "verified": "verified",
    "weak": "weak",
    "contradicted": "contradicted",
    "needs_review": "needs review",
    "unverified": "unverified",
}
_RANK = {status: n for n, status in enumerate(CLAIM_STATUSES)}
FINDINGS_SHOWN = 3


@dataclass(frozen=True)
class AnswerCard:
    """``text`` is the short answer (None when the run gives none); ``basis`` the claims
    it rests on, or, without an answer, the best-checked findings."""

    text: str | None
    reason: str | None
    basis: tuple[ClaimRecord, ...]
    method: str | None = None

    @property
    def kind(self) -> str:
        return "answer" if self.text else "findings"


@dataclass(frozen=True)
class SourceRow:
    source: SourceRecord
    domain: str
    claims: int


@dataclass(frozen=True)
class Verification:
    counts: dict[str, int]
    total: int
    sources: int

    def share(self, status: str) -> float:
        return 100.0 * self.counts[status] / self.total if self.total else 0.0


def answer_card(run: Run, claims: list[ClaimRecord]) -> AnswerCard:
    given = [e for e in run.events.events() if isinstance(e, AnswerGiven)]
    by_id = {c.id: c for c in claims}
    if given:
        answer = given[-1]
        basis = tuple(by_id[i] for i in answer.claim_ids if i in by_id)
        return AnswerCard(answer.text or None, answer.reason, basis, answer.method)
    ranked = sorted(claims, key=lambda c: (_RANK.get(c.status, len(_RANK)), c.id))
    best = tuple(c for c in ranked if c.status in ("verified", "weak"))[:FINDINGS_SHOWN]
    return AnswerCard(None, None, best)


def verification(claims: list[ClaimRecord], sources: list[SourceRecord]) -> Verification:
    counted = Counter(c.status for c in claims)
    return Verification({s: counted.get(s, 0) for s in CLAIM_STATUSES}, len(claims), len(sources))


def domain_of(url: str) -> str:
    host = urlsplit(url).hostname or url
    return host.removeprefix("www.")


def source_rows(claims: list[ClaimRecord], sources: list[SourceRecord]) -> list[SourceRow]:
    cited: Counter[str] = Counter(e.source_id for c in claims for e in c.evidence)
    return [SourceRow(s, domain_of(s.final_url or s.url), cited.get(s.id, 0)) for s in sources]


@dataclass(frozen=True)
class RunView:
    """A run as the report and comparison pages show it."""

    run: Run
    claims: list[ClaimRecord]
    sources: list[SourceRecord]
    answer: AnswerCard
    checked: Verification


def run_view(run: Run) -> RunView:
    claims = ClaimLedger(run.dir).claims()
    sources = SourceLedger(run.dir).records()
    return RunView(run, claims, sources, answer_card(run, claims), verification(claims, sources))
