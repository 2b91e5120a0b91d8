"""The status taxonomy (agent-loop.txt), decided from checks code can repeat.

verified      supported by ≥2 independent origins, mechanical checks pass, nothing refutes
weak          supported by one origin only (mechanical checks pass, nothing refutes)
contradicted  refuted by some evidence (both sides are kept in the claim's evidence)
needs_review  a mechanical check failed, or no evidence clearly supports or refutes it
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from assay.claims.independence import Origins
from assay.claims.judge import Label
from assay.claims.mechanical import CheckResult
from assay.statuses import SettledStatus


@dataclass(frozen=True)
class Judgment:
    """A judge's label for one claim–evidence pair, with the quote it relied on."""

    source_id: str
    label: Label
    quote: str
    confident: bool = True


def decide_status(
    checks: Sequence[CheckResult], judgments: Sequence[Judgment], origins: Origins
) -> tuple[SettledStatus, str]:
    failed = [c for c in checks if not c.passed]
    if failed:
        return "needs_review", "; ".join(f"{c.name}: {c.detail}" for c in failed)
    supporting = [j.source_id for j in judgments if j.label == "SUPPORTS" and j.confident]
    refuting = [j.source_id for j in judgments if j.label == "REFUTES" and j.confident]
    if refuting:
        sides = f"refuted by {', '.join(sorted(set(refuting)))}"
        if supporting:
            sides += f"; supported by {', '.join(sorted(set(supporting)))}"
        return "contradicted", sides
    independent = origins.count(supporting)
    if independent >= 2:
        return "verified", f"supported by {independent} independent origins"
    if independent == 1:
        return "weak", "supported by one origin only"
    unsure = any(not j.confident for j in judgments)
    return "needs_review", "the judge was unsure" if unsure else "no evidence supports it"
