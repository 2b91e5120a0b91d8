"""The verdict matrix of a search-synth run: who checked whom, with what verdicts.

The panel writes it as data, with the chief author, to synth.json (``write_panel``, just
before report.md, whose ``### <checker> Fact-Check of <author>`` tables show the same
rows); ``assay show``, the TUI and the web app read that file (``load_panel``). The report
is parsed (``parse_fact_checks``) only for a run written before synth.json existed: such a
run is read as it is, never migrated, so reading a run never writes to it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from pydantic import BaseModel, ValidationError

from assay.errors import IntegrityError
from assay.store.runs import REPORT_FILE, SYNTH_STATE_FILE, Run

VERDICTS = ("VERIFIED", "FALSE", "UNVERIFIABLE")
_CHIEF = re.compile(r"^\*\*Chief Author:\*\*\s*(?P<name>.+?)\s*$", re.MULTILINE)
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


@dataclass(frozen=True)
class PanelState:
    """What the interfaces show of a synth run besides its events."""

    chief: str | None = None
    checks: tuple[FactCheck, ...] = ()


class _CheckModel(BaseModel):
    checker: str
    author: str
    counts: dict[str, int]
    blocked: str | None = None


class _PanelModel(BaseModel):
    """synth.json."""

    chief: str | None = None
    checks: list[_CheckModel] = []


def write_panel(run: Run, chief: str, checks: Sequence[FactCheck]) -> None:
    """synth.json, atomically replaced and chained like every top-level run file."""
    model = _PanelModel(
        chief=chief or None,
        checks=[_CheckModel(checker=c.checker, author=c.author, counts=dict(c.counts),
                            blocked=c.blocked) for c in checks],
    )  # fmt: skip
    run.write_file(SYNTH_STATE_FILE, model.model_dump_json(indent=2) + "\n")


def parse_panel(text: str, where: str = SYNTH_STATE_FILE) -> PanelState:
    """synth.json's text as a ``PanelState``; an unreadable file is an IntegrityError."""
    try:
        model = _PanelModel.model_validate_json(text)
    except ValidationError as exc:
        raise IntegrityError(f"{where}: unreadable ({exc.error_count()} errors)") from None
    checks = tuple(
        FactCheck(c.checker, c.author, {v: c.counts.get(v, 0) for v in VERDICTS}, c.blocked)
        for c in model.checks
    )
    return PanelState(model.chief, checks)


def legacy_panel(markdown: str) -> PanelState:
    """The state of a run older than synth.json, read back from its report.md."""
    chief = _CHIEF.search(markdown)
    return PanelState(chief["name"] if chief else None, tuple(parse_fact_checks(markdown)))


def load_panel(run_dir: Path) -> PanelState:
    """synth.json; for an older run, its report.md; an empty state when it has neither."""
    path = run_dir / SYNTH_STATE_FILE
    if path.is_file():
        return parse_panel(path.read_text(encoding="utf-8"), str(path))
    report = run_dir / REPORT_FILE
    if report.is_file():
        return legacy_panel(report.read_text(encoding="utf-8"))
    return PanelState()
