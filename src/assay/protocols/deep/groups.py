"""Facts about one subject merged: those that overlap (most content words shared both
ways) or that give one subject's attribute different values (``claims.conflict``, each
fact read with the title of the page it came from). Facts about different subjects are
never merged, however many words they share (two villages "in the Orsa highlands" are
two facts). The synthesis (synthesis.py) and its conclusions (conclusions.py) read the
groups.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from assay.claims.conflict import Reading, different_subjects, read, reading_conflict
from assay.claims.relevance import coverage
from assay.store.claims import ClaimRecord
from assay.store.markers import neutralize

OVERLAP = 0.6
_BRACKET_NUMBER = re.compile(r"\[(\d+)\]")


def clean(text: str) -> str:
    """Page text for the report: no forged marker or link, no [N] that looks like a citation."""
    return _BRACKET_NUMBER.sub(r"(\1)", neutralize(" ".join(text.split())))


@dataclass
class Group:
    """Overlapping facts, merged: the claims, and who supports and refutes them."""

    claims: list[ClaimRecord]
    supporting: list[str] = field(default_factory=list)
    refuting: list[tuple[str, str]] = field(default_factory=list)  # (source id, quote)
    readings: list[Reading] = field(default_factory=list)  # each claim's, with its page title

    @property
    def lead(self) -> ClaimRecord:
        return self.claims[0]

    @property
    def conflict(self) -> bool:
        """Sources disagree: a quote about the same subject refutes a claim, or two of the
        merged claims give one subject's attribute different values (``claims.conflict``;
        different subjects, such as two aircraft of one series or two events, never
        conflict, whatever a judge labelled)."""
        return bool(self.refuting) or _disagree(self.readings)


def _disagree(readings: Sequence[Reading]) -> bool:
    return any(
        reading_conflict(a, b) is not None
        for i, a in enumerate(readings)
        for b in readings[i + 1 :]
    )


def group_facts(
    claims: Sequence[ClaimRecord],
    titles: Mapping[str, str] | None = None,
    source_titles: Mapping[str, str] | None = None,
) -> list[Group]:
    """Merge the facts about one subject that overlap or conflict; ``titles`` gives the title
    of the page each claim (by id) was read from, which names the subject of "It was …",
    and ``source_titles`` the title of each source (by id), which names the subject of a
    refuting quote: a quote about another subject refutes nothing."""
    groups: list[Group] = []
    readings: dict[str, Reading] = {}
    for claim in claims:
        reading = readings[claim.id] = read(claim.text, (titles or {}).get(claim.id, ""))
        for group in groups:
            lead = group.lead.text
            if different_subjects(group.readings[0], reading):
                continue
            both = min(coverage(lead, claim.text), coverage(claim.text, lead))
            if both >= OVERLAP or reading_conflict(group.readings[0], reading) is not None:
                group.claims.append(claim)
                group.readings.append(reading)
                break
        else:
            groups.append(Group([claim], readings=[reading]))
    for group in groups:
        for claim in group.claims:
            for item in claim.evidence:
                if item.stance == "refutes":
                    quoted = read(item.quote, (source_titles or {}).get(item.source_id, ""))
                    if not different_subjects(readings[claim.id], quoted):
                        group.refuting.append((item.source_id, item.quote))
                elif item.source_id not in group.supporting:
                    group.supporting.append(item.source_id)
            if claim.source_ids and claim.source_ids[0] not in group.supporting:
                group.supporting.insert(0, claim.source_ids[0])
    return groups
