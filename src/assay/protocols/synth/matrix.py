"""The verdict matrix of a search-synth report: who checked whom, with what verdicts.

Read back from the report's ``### <checker> Fact-Check of <author>`` tables, so ``assay
show``, the TUI and any script see the matrix the file itself states.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

VERDICTS = ("VERIFIED", "FALSE", "UNVERIFIABLE")
_FACT_CHECK = re.compile(r"^###\s+(?P<checker>.+?)\s+Fact-Check of\s+(?P<author>.+?)\s*$")
_UNESCAPED_PIPE = re.compile(r"(?<!\\)\|")


@dataclass
class FactCheck:
    """One "### checker Fact-Check of author" section of a synth report."""

    checker: str
    author: str
    counts: dict[str, int] = field(default_factory=lambda: dict.fromkeys(VERDICTS, 0))
    blocked: str | None = None


def parse_fact_checks(markdown: str) -> list[FactCheck]:
    """Every fact-check section of a search-synth report.md, with its verdict counts."""
    found: list[FactCheck] = []
    current: FactCheck | None = None
    verdict_column: int | None = None
    for raw in markdown.splitlines():
        line = raw.strip()
        if line.startswith("#"):
            match = _FACT_CHECK.match(line)
            current = FactCheck(match["checker"], match["author"]) if match else None
            verdict_column = None
            if current is not None:
                found.append(current)
            continue
        if current is None:
            continue
        if line.startswith("**[BLOCK]**"):
            current.blocked = line.removeprefix("**[BLOCK]**").strip() or "blocked"
        if not line.startswith("|"):
            continue
        cells = [c.strip() for c in _UNESCAPED_PIPE.split(line)[1:-1]]
        if verdict_column is None:
            upper = [c.upper() for c in cells]
            if "VERDICT" in upper:
                verdict_column = upper.index("VERDICT")
            continue
        if verdict_column < len(cells):
            verdict = cells[verdict_column].strip("* ").upper()
            if verdict in current.counts:
                current.counts[verdict] += 1
            elif verdict == "BLOCKED":  # the row that says why the rest went unchecked
                current.blocked = cells[-1] or "blocked"
    return found
