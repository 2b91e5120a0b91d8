"""The report made from the claim ledger (report/claims_report.py)."""

from __future__ import annotations

from assay.report.claims_report import render_claims_report
from assay.store.claims import ClaimRecord, Evidence
from assay.store.sources import SourceRecord

QUOTE = "The Vell Review was founded in 1901 in Osricby."
SOURCE = SourceRecord(
    id="src_01", url="http://site.test/vell", final_url="http://site.test/vell",
    title="Vell Review", snapshot="snapshots/vell.md", content_type="text/html",
    accessed_at="2026-12-06T10:00:00Z", sha256="0" * 64, chars=len(QUOTE), domain="site.test",
)  # fmt: skip


def _claim(number: int, text: str, status: str, quoted: bool) -> ClaimRecord:
    evidence = [Evidence(sourceId="src_01", quote=QUOTE, start=0, end=len(QUOTE))]
    return ClaimRecord(
        id=f"claim_00{number}", text=text, confidence="medium", sourceIds=["src_01"],
        status=status, evidence=evidence if quoted else [],
    )  # fmt: skip


def test_a_claim_no_sentence_of_its_source_states_is_counted_not_presented() -> None:
    quoted = _claim(1, "The Vell Review was founded in 1901.", "weak", quoted=True)
    # a model's claim whose quote the verifier did not find: it keeps its source id
    unquoted = _claim(2, "The Vell Review is a Tarn Monthly title.", "needs_review", quoted=False)
    for groups in ((), (("When was the Vell Review founded?", [quoted, unquoted]),)):
        report = render_claims_report(
            "When was the Vell Review founded?", [quoted, unquoted], [SOURCE],
            written_by="assay", groups=groups,
        )  # fmt: skip
        assert "The Vell Review was founded in 1901. [1] (claim_001: weak)" in report
        assert "claim_002" not in report and "Tarn Monthly" not in report
        assert "1 claims were found in no sentence of their sources" in report
        assert "1 weak, 1 needs review" in report
