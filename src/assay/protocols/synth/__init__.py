"""search-synth: a panel of independent searchers that fact-check each other.

``synth_async(topic, roster=..., output=...)`` runs the pre-flight check and the three
phases of search-synth.txt (see panel.py and phases.py) and returns a ``SynthResult``
whose ``signal`` is ``[DONE]``, ``[MISMATCH]``, ``[INCOMPLETE]`` or ``[BLOCK]``; the CLI
turns it into exit code 0, 5, 6 or 7. ``synth`` is the same, synchronously.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from assay.blocking import blocking
from assay.config import Settings, load_settings
from assay.models import Model
from assay.protocols.outcome import claim_counts
from assay.protocols.runner import execute, start_run
from assay.protocols.synth.output import count_verdicts
from assay.protocols.synth.panel import Blocked, Incomplete, Manager, Mismatch, SynthHalted
from assay.protocols.synth.roster import (
    Agent,
    Roster,
    default_roster,
    describe_roster,
    load_roster,
    parse_roster,
    roster_from_flags,
)
from assay.protocols.synth.timeouts import Timeouts
from assay.store.eventlog import Listener
from assay.store.runs import REPORT_FILE

EXIT_CODES = {"[DONE]": 0, "[MISMATCH]": 5, "[INCOMPLETE]": 6, "[BLOCK]": 7}


@dataclass
class SynthResult:
    """What a panel run produced (also the ``--json`` object)."""

    run_id: str
    run_dir: str
    status: str
    signal: str
    reason: str | None
    output: str
    report: str | None
    searchers: list[str]
    chief_author: str
    matrix: dict[str, dict[str, int]]
    blocked: dict[str, str]
    claims: dict[str, int]
    usage: dict[str, Any]
    engine: str
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def exit_code(self) -> int:
        return EXIT_CODES.get(self.signal, 1)

    def to_json(self) -> dict[str, Any]:
        return {**asdict(self), "exit_code": self.exit_code}


async def synth_async(
    topic: str,
    *,
    roster: Roster | Path | None = None,
    output: Path,
    settings: Settings | None = None,
    timeouts: Timeouts | None = None,
    models: Mapping[str, Model] | None = None,
    listener: Listener | None = None,
    echo: Callable[[str], None] | None = None,
) -> SynthResult:
    """Run the panel on ``topic``; ``models`` overrides agents' models by name (tests).
    Without a ``roster`` the default one is built from what is configured
    (``default_roster``; ``echo`` gets it, one agent a line) and pre-flight decides.

    A roster file that cannot be read or is invalid is the user's to fix: a UserError
    before anything starts (no run, no output file), not a panel halted on [BLOCK]."""
    settings = settings or load_settings()
    if isinstance(roster, Path):
        roster = load_roster(roster)
    context = start_run(settings, topic, "synth", output=str(output))
    if roster is None:
        roster = default_roster(settings, context.keys)
        if echo is not None:
            echo("Default roster (none was given):\n" + describe_roster(roster))
    if listener is not None:
        context.run.events.listeners.append(listener)
    engines = {a.model or settings.model or "extractive" for a in roster.agents}
    manager = Manager(context, roster, output, timeouts or Timeouts(), models or {})

    async def body() -> None:
        await manager.run()

    signal, reason = "[DONE]", None
    try:
        await execute(context, body)
    except SynthHalted as halted:
        signal, reason = halted.signal, str(halted)
    synth = manager.synth
    run = context.run
    report = run.dir / REPORT_FILE
    return SynthResult(
        run_id=run.id,
        run_dir=str(run.dir),
        status=run.info.effective_status(),
        signal=signal,
        reason=reason,
        output=str(output),
        report=str(report) if report.is_file() else None,
        searchers=synth.searchers,
        chief_author=synth.chief,
        matrix={f"{c} → {t}": count_verdicts(rows) for (c, t), rows in synth.checks.items()},
        blocked={f"phase {p}: {a}": why for (p, a), why in synth.blocked.items()},
        claims=claim_counts(run),
        usage=run.info.usage.model_dump(),
        engine=", ".join(sorted(engines)),
    )


synth = blocking(synth_async)


__all__ = [
    "EXIT_CODES",
    "Agent",
    "Blocked",
    "Incomplete",
    "Mismatch",
    "Roster",
    "SynthHalted",
    "SynthResult",
    "Timeouts",
    "default_roster",
    "load_roster",
    "parse_roster",
    "roster_from_flags",
    "synth",
    "synth_async",
]
