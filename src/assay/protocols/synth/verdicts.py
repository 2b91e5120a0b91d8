"""The verdict each fact-check earns, and which statements stand (Phase 2 → Phase 3).

A check's verdict is the one the ledger supports:

    the check's claim verified or weak (a supporting quote)        VERIFIED
    the check's claim contradicted: its sides weighed               FALSE, or VERIFIED when
                                                                    more independent origins
                                                                    support it than refute it
    else the assertion itself contradicted in the ledger           FALSE (its refuting quote)
    else                                                           UNVERIFIABLE

"Contradicted" in the ledger means some page refutes the claim, with both sides kept; a
fact-check weighs them: the side with more independent origins (``claims.independence``)
decides, a tie refutes. One rumour page does not make a fact three other pages state
FALSE, and a refutation the ledger holds is never shown as UNVERIFIABLE (nor, in Phase 3,
as a plausible unverified claim). A page that says otherwise refutes an assertion whoever
read it: only support has to be independent of the author.

Phase 3 takes the statements grouped by their text: two searchers may write the same
sentence, each as a claim of its own, from its own page. A statement is out when any check
of any of its claims is FALSE or the ledger holds one of them as contradicted; it is
verified when a check verified one of them; else it is an unverified claim naming exactly
the searchers that asserted it and, as its sources, only the pages of their own claims
whose quotes support it.
"""

from __future__ import annotations

import contextlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from assay.claims.independence import Origins, group_origins
from assay.errors import UnsafePathError
from assay.protocols.synth.output import CheckRow, FinalLine, Synthesis
from assay.store.claims import ClaimRecord, Evidence
from assay.store.sources import SourceLedger

_STANCE = {"verified": "supports", "weak": "supports", "contradicted": "refutes"}


@dataclass(frozen=True)
class CheckVerdict:
    verdict: str
    claim: ClaimRecord  # the claim whose quote decides it (the check's, or the assertion's)
    evidence: Evidence | None = None
    dissent: int = 0  # independent origins on the other side (a contradicted claim weighed)


def weighed(claim: ClaimRecord, origins: Origins) -> tuple[Evidence | None, int]:
    """The quote that decides the claim, when its status is decided (a contradicted
    claim's side with more independent origins; a tie refutes), and how many independent
    origins are on the other side."""
    wanted = _STANCE.get(claim.status)
    dissent = 0
    if claim.status == "contradicted":
        count = {
            stance: origins.count([e.source_id for e in claim.evidence if e.stance == stance])
            for stance in ("supports", "refutes")
        }
        wanted = "supports" if count["supports"] > count["refutes"] else "refutes"
        dissent = count["refutes" if wanted == "supports" else "supports"]
    return next((e for e in claim.evidence if wanted and e.stance == wanted), None), dissent


def check_verdict(
    check: ClaimRecord, asserted: ClaimRecord | None, origins: Origins
) -> CheckVerdict:
    """The verdict of ``check`` (a fact-check's claim) on ``asserted`` (the Phase 1 claim);
    ``origins`` groups the sources of both claims' evidence."""
    evidence, dissent = weighed(check, origins)
    if evidence is not None:
        verdict = "VERIFIED" if evidence.stance == "supports" else "FALSE"
        return CheckVerdict(verdict, check, evidence, dissent)
    if asserted is not None and asserted.status == "contradicted":
        refuting = next((e for e in asserted.evidence if e.stance == "refutes"), None)
        if refuting is not None:
            return CheckVerdict("FALSE", asserted, refuting)
    return CheckVerdict("UNVERIFIABLE", check)


def evidence_origins(ledger: SourceLedger, claims: Sequence[ClaimRecord]) -> Origins:
    """The origins of the sources the claims' evidence quotes (their snapshots read)."""
    ids = {e.source_id for c in claims for e in c.evidence}
    records = [r for r in (ledger.get(i) for i in ids) if r is not None]
    texts = {}
    for record in records:
        with contextlib.suppress(OSError, UnicodeDecodeError, UnsafePathError):
            texts[record.id] = ledger.read_snapshot(record)
    return group_origins(records, texts)


@dataclass
class _Statement:
    text: str
    claims: list[tuple[str, str]] = field(default_factory=list)  # (searcher, claim id)


def _grouped(synth: Synthesis) -> list[_Statement]:
    found: dict[str, _Statement] = {}
    for narrative in synth.narratives:
        for paragraph in narrative.paragraphs:
            for sentence in paragraph:
                if sentence.claim_id is None:
                    continue
                key = " ".join(sentence.text.casefold().split())
                statement = found.setdefault(key, _Statement(sentence.text))
                statement.claims.append((narrative.agent, sentence.claim_id))
    return list(found.values())


def final_statements(
    synth: Synthesis, claims: Mapping[str, ClaimRecord]
) -> tuple[list[FinalLine], list[FinalLine]]:
    """(verified statements, unverified ones); anything FALSE is in neither (see the
    module docstring). ``claims`` is the ledger, by id."""
    rows: dict[str, list[CheckRow]] = {}
    for checks in synth.checks.values():
        for row in checks:
            rows.setdefault(row.claim_id, []).append(row)
    urls = {s.record.id: s.record.url for n in synth.narratives for s in n.gathered.sources}
    verified: list[FinalLine] = []
    unverified: list[FinalLine] = []
    for statement in _grouped(synth):
        ids = [claim_id for _, claim_id in statement.claims]
        mine = [r for claim_id in ids for r in rows.get(claim_id, [])]
        own = [claims[i] for i in ids if i in claims]
        if any(r.verdict == "FALSE" for r in mine) or any(c.status == "contradicted" for c in own):
            continue
        good = next((r for r in mine if r.verdict == "VERIFIED"), None)
        if good is not None:
            verified.append(FinalLine(statement.text, good.check_id, [good.source]))
            continue
        supporting = [
            urls[e.source_id]
            for c in own
            for e in c.evidence
            if e.stance == "supports" and e.source_id in urls
        ]
        who = ", ".join(dict.fromkeys(agent for agent, _ in statement.claims))
        unverified.append(
            FinalLine(statement.text, ids[0], list(dict.fromkeys(supporting)), asserted_by=who,
                      more_claims=ids[1:])
        )  # fmt: skip
    return verified, unverified
