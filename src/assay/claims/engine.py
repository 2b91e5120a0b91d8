"""The verification engine every protocol shares.

For each claim: the passages of each cited snapshot most relevant to it go to the judge
(or, to a judge that picks its sentences itself, the model's, the whole snapshot in one call);
each verdict's quote is located in the snapshot (a quote that is not there earns
nothing); the mechanical checks run on the resulting evidence; sources are grouped into
independent origins; and the status follows from all of that (``status.decide_status``).
Corroborating sources (``claims.corroborate``) are judged the same way and attached only
when their verdict stands; a quote about another subject (``claims.conflict``: a page of
the same template about a neighbouring place or a sibling model) neither supports nor
refutes, whether the claim cites its page or not, and a "support" that gives another value for the
claim's date, place, number or name is no support, nor is a quote that lacks one of the
claim's numbers or names (``mechanical.key_facts_missing``). A judge's REFUTES stands only on a
disagreement code can see (``claims.disagreement``: a negation or antonym, another number,
another value for the same slot) in a quote about the claim's subject (``claims.subjects``:
not a numbered sibling's page, not a sentence opening with another name), and its SUPPORTS
never on a disagreement.
Statuses are staged in memory and claims.jsonl is rewritten atomically at checkpoints
(every ``CHECKPOINT_SECONDS``, or twenty times as long as the last rewrite took, if that
is longer) and when the pass ends, however it ends: an interrupted
pass keeps what it wrote, and a resumed run verifies the rest (their status is still
``unverified``).
"""

from __future__ import annotations

import time
from collections.abc import Collection, Iterable, Mapping, Sequence
from functools import partial

from assay.claims import conflict
from assay.claims.assessment import RunSources, assess, checks_json
from assay.claims.compare import Comparer
from assay.claims.corroborate import CorroborationPool
from assay.claims.independence import Origins
from assay.claims.judge import Judge, Verdict, WholeSourceJudge
from assay.claims.normalize import locate, normalize_text
from assay.claims.picker import pick_claims
from assay.claims.vetoes import Reading, Veto, first_veto
from assay.errors import ProviderError
from assay.events import ClaimVerified, VerdictSetAside, WarningEvent
from assay.store.claims import ClaimRecord, Evidence, Stance
from assay.store.runs import Run
from assay.store.sources import SourceRecord
from assay.text import looks_like_instruction

PASSAGES_PER_SOURCE = 2
_CONTEXT_CHARS = 400
CHECKPOINT_SECONDS = 2.0
_STANCES: dict[str, Stance] = {"SUPPORTS": "supports", "REFUTES": "refutes"}


def passages(claim: str, text: str, limit: int = PASSAGES_PER_SOURCE) -> list[tuple[int, int]]:
    """(start, end) windows of ``text`` around the sentences most relevant to ``claim``."""
    picked = pick_claims(claim, text, max_claims=limit)
    windows = []
    for sentence in picked:
        start = max(0, sentence.start - _CONTEXT_CHARS)
        end = min(len(text), sentence.end + _CONTEXT_CHARS)
        windows.append((start, end))
    return windows or ([(0, min(len(text), 2 * _CONTEXT_CHARS))] if text else [])


class VerificationEngine:
    """Verifies claims against the run's own snapshots with one judge."""

    def __init__(self, run: Run, judge: Judge) -> None:
        self.run = run
        self.judge = judge
        self.ledger = run.claim_ledger

    async def verify_all(
        self, only: Iterable[str] | None = None, *, corroborators: Collection[str] | None = None
    ) -> list[ClaimRecord]:
        """Verify every claim (or those in ``only``); returns the claims verified.

        With ``corroborators`` (source ids), each claim is also judged against those of
        them that speak to it and come from an origin it does not cite already.
        """
        wanted = set(only) if only is not None else None
        sources = RunSources.load(self.run.source_ledger)
        origins = sources.origins()
        pool = (
            CorroborationPool.of({s: t for s, t in sources.texts.items() if s in corroborators})
            if corroborators is not None
            else CorroborationPool.of({})
        )
        checked: list[ClaimRecord] = []
        written, interval = time.monotonic(), CHECKPOINT_SECONDS
        try:
            for claim in self.ledger.claims():
                if wanted is not None and claim.id not in wanted:
                    continue
                candidates = pool.candidates(claim.text, origins, cited=claim.source_ids)
                verified = await self.verify(claim, sources, origins, candidates)
                self.ledger.stage([verified])
                checked.append(verified)
                self.run.events.emit(
                    ClaimVerified(
                        id=verified.id,
                        status=verified.status,  # type: ignore[arg-type]
                        reason=verified.status_reason,
                    )
                )
                if time.monotonic() - written >= interval:
                    started = time.monotonic()
                    self.ledger.flush()
                    written = time.monotonic()
                    # Writing never takes more than a twentieth of the pass, however many
                    # claims the file holds: the pass stays linear in them.
                    interval = max(CHECKPOINT_SECONDS, 20 * (written - started))
        finally:
            self.ledger.flush()
        return checked

    async def verify(
        self,
        claim: ClaimRecord,
        sources: RunSources,
        origins: Origins,
        candidates: Sequence[str] = (),
    ) -> ClaimRecord:
        """Judge the claim against its own sources and the ``candidates`` (corroborating
        sources of other origins); a candidate is attached to the claim only when the
        judge found it supports or refutes the claim."""
        # The judge is the authority on every source it reads: evidence recorded earlier
        # (an extractor's quote) for a judged source is replaced by the judge's verdict.
        own = list(dict.fromkeys(claim.source_ids))
        judged = set(own) & set(sources.texts)
        evidence = [e for e in claim.evidence if e.source_id not in judged]
        read_from = {e.source_id for e in claim.evidence if e.stance == "supports"}
        claim_page = extracted_from(claim, sources.records)
        subject = conflict.read(claim.text, claim_page)
        unsure = False
        vetoes: list[Veto] = []
        for source_id in [*own, *candidates]:
            found, doubtful = await self._judge_source(
                claim,
                subject,
                claim_page,
                source_id,
                sources,
                read_from=read_from,
                vetoes=vetoes,
            )
            unsure = unsure or doubtful
            evidence += [found] if found is not None else []
        earned = {e.source_id for e in evidence}
        attached = own + [c for c in candidates if c in earned and c not in own]
        checked = claim.model_copy(update={"evidence": _dedupe(evidence), "source_ids": attached})
        status, reason, results = assess(checked, sources, origins, unsure=unsure, set_aside=vetoes)
        return checked.model_copy(
            update={
                "status": status,
                "status_reason": reason,
                "checks": checks_json(results, origins, checked, unsure=unsure, set_aside=vetoes),
                "verified_by": self.judge.name,
            }
        )

    async def _judge_source(
        self,
        record_of_claim: ClaimRecord,
        subject: conflict.Reading,
        claim_page: str,
        source_id: str,
        sources: RunSources,
        *,
        read_from: Collection[str],
        vetoes: list[Veto],
    ) -> tuple[Evidence | None, bool]:
        """The first located verdict of one source (or None), and whether the judge was
        unsure on the way; ``subject`` is the claim read with ``claim_page``, the title of
        the page it was made from; ``read_from`` are the sources whose quote the claim was
        made from. Each SUPPORTS or REFUTES a rule sets aside (``claims.vetoes``) is appended
        to ``vetoes`` and written as a ``claim.set_aside`` event."""
        # A claim made to stand alone ("It was …" → "X was …", claims/standalone.py) is
        # judged as its source stated it: the subject came from the page's title.
        claim = record_of_claim.judged_text
        text = sources.texts.get(source_id)
        if text is None:
            return None, False
        if source_id in read_from:
            quoted = _quoted_verbatim(record_of_claim, claim, source_id, text)
            if quoted is not None:
                return quoted, False
        record = sources.records.get(source_id)
        title = (record.title or "") if record is not None else ""
        unsure = False
        for start, end in self._windows(claim, text):
            try:
                verdict = await self.judge.judge(claim, text[start:end])
            except ProviderError as exc:
                # One failed judgment (a timeout, output that never validated) leaves
                # this pair undecided; it does not end the run.
                self.run.events.emit(
                    WarningEvent(
                        message=f"{record_of_claim.id} vs {source_id}: judge failed: {exc}",
                        code="judge_failed",
                    )
                )
                unsure = True
                continue
            located = _locate_in(text, verdict, start, end)
            veto = await first_veto(
                Reading(
                    claim,
                    record_of_claim.text,
                    verdict,
                    source_id,
                    title,
                    subject,
                    own_page=source_id in read_from,
                    same_subject=partial(
                        self._compared_same,
                        claim,
                        verdict.quote,
                        claim_page,
                        title,
                    ),
                    claim_title=claim_page,
                )
            )
            if veto is not None:
                located = None
                unsure = unsure or veto.unsure
                if verdict.label != "NOT_ENOUGH_INFO":
                    vetoes.append(veto)
                    self.run.events.emit(
                        VerdictSetAside(
                            id=record_of_claim.id,
                            source_id=source_id,
                            rule=veto.rule,
                            label=veto.label,
                            reason=veto.reason,
                        )
                    )
            if verdict.label == "NOT_ENOUGH_INFO" or located is None or not verdict.confident:
                unsure = unsure or not verdict.confident
                continue
            quote_start, quote_end = located
            return Evidence(
                sourceId=source_id,
                quote=text[quote_start:quote_end],
                start=quote_start,
                end=quote_end,
                stance=_STANCES[verdict.label],
            ), unsure
        return None, unsure

    def _windows(self, claim: str, text: str) -> list[tuple[int, int]]:
        """What of a source the judge reads, one call per window: the whole text for a
        judge that picks its own sentences, else the passages most relevant to the claim."""
        if isinstance(self.judge, WholeSourceJudge) and self.judge.whole_source:
            return [(0, len(text))] if text else []
        return passages(claim, text)

    async def _compared_same(self, claim: str, quote: str, claim_page: str, page: str) -> bool:
        """Whether a judge with a comparison step (the model's) agrees that a refuting
        quote is about the claim's subject; a judge without one is taken at its word."""
        if not isinstance(self.judge, Comparer):
            return True
        try:
            found = await self.judge.compare(claim, quote, first_page=claim_page, second_page=page)
        except ProviderError:
            return False
        return found.same_subject


def _quoted_verbatim(record: ClaimRecord, claim: str, source_id: str, text: str) -> Evidence | None:
    """The claim's own quote from ``source_id`` when the claim is that quote word for word
    and the quote stands at its offsets: the page states the claim by identity, a check
    ``assay verify`` repeats, and no judge is asked (half the claims a small model drew
    from HotpotQA pages were such sentences, each costing a judge call of ~450 tokens)."""
    for item in record.evidence:
        if (
            item.source_id == source_id
            and item.stance == "supports"
            and text[item.start : item.end] == item.quote
            and normalize_text(item.quote).rstrip(".").casefold()
            == normalize_text(claim).rstrip(".").casefold()
            and not looks_like_instruction(item.quote)
        ):
            return item
    return None


def extracted_from(claim: ClaimRecord, records: Mapping[str, SourceRecord]) -> str:
    """The title of the page the claim was extracted from (its first quoted source): it
    names the subject a claim like "It was established in 1991" speaks of."""
    for item in claim.evidence:
        record = records.get(item.source_id)
        if record is not None:
            return record.title or ""
    return ""


def _locate_in(text: str, verdict: Verdict, start: int, end: int) -> tuple[int, int] | None:
    """The span of ``verdict.quote`` in ``text``, preferring one inside the judged passage."""
    if not verdict.quote.strip():
        return None
    spans = locate(text, verdict.quote)
    inside = [s for s in spans if s[0] >= start and s[1] <= end]
    chosen = inside or spans
    return chosen[0] if chosen else None


def _dedupe(evidence: list[Evidence]) -> list[Evidence]:
    seen: set[tuple[str, int, int]] = set()
    kept = []
    for item in evidence:
        key = (item.source_id, item.start, item.end)
        if key not in seen:
            seen.add(key)
            kept.append(item)
    return kept
