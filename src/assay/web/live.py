"""The live run page's server side: each protocol's phases in reader's words, and what the
page's script needs to know of the run before its events arrive (static/live.js builds
everything else from the typed events of the SSE stream, from seq 0, so a page opened
late or reloaded shows the same as one that watched from the start)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import PurePath
from typing import Any

from assay.events import EVENT_TYPES, SynthChecked
from assay.protocols.registry import resumable
from assay.store.runs import Run

_OUTPUT_LINE = re.compile(r"^(Output: )(.+)$", re.MULTILINE)
BUDGETS = ("budget_time", "budget_tokens", "budget_fetches", "budget_model_calls")


@dataclass(frozen=True)
class Phase:
    name: str
    """As the ``phase.started`` event names it."""
    label: str
    after: str | None = None
    """A closing step no event starts: it begins when this phase ends (synth's report)."""


PHASES: dict[str, tuple[Phase, ...]] = {
    "research": (Phase("plan", "Plan"), Phase("gather", "Search and read"),
                 Phase("verify", "Check claims"), Phase("synthesize", "Write the report")),
    "ask": (Phase("gather", "Search and read"), Phase("verify", "Check claims"),
            Phase("synthesize", "Write the answer")),
    "web-research": (Phase("gather", "Read the pages"), Phase("verify", "Check claims"),
                     Phase("synthesize", "Write the summary")),
    "deep": (Phase("search-method", "Choose a search method"),
             Phase("plan", "Plan the directions"), Phase("worker", "Research each direction"),
             Phase("verify", "Settle the statuses"), Phase("synthesize", "Synthesise"),
             Phase("output", "Write the report")),
    "synth": (Phase("phase1", "Searchers answer"), Phase("phase2", "Cross-check"),
              Phase("final", "Chief author's report", after="phase2")),
}  # fmt: skip


def run_data(run: Run, status: str, active: bool) -> dict[str, Any]:
    """The JSON island of the live page."""
    info = run.info
    extra = info.model_extra or {}
    web = extra.get("web_research")
    pages = extra.get("sources")
    if isinstance(web, dict):
        pages = len(web.get("urls") or []) or None
    return {
        "id": run.id,
        "protocol": info.protocol,
        "status": status,
        "active": active,
        "resumable": resumable(info.protocol),
        "phases": [
            {"name": p.name, "label": p.label, "after": p.after}
            for p in PHASES.get(info.protocol, ())
        ],
        "budgets": {name: info.config.get(name) for name in BUDGETS if info.config.get(name)},
        "expected": {"pages": pages, "directions": extra.get("max_directions")},
        "eventTypes": sorted(EVENT_TYPES),
    }


def legacy_matrix(run: Run) -> list[Any]:
    """The verdict matrix of a synth run written before ``synth.checked`` events existed,
    as ``synth.matrix`` loads it; [] for every other run."""
    if run.info.protocol != "synth":
        return []
    if any(isinstance(e, SynthChecked) for e in run.events.events()):
        return []  # the page builds the matrix from the events
    from assay.protocols.synth.matrix import load_panel

    return list(load_panel(run.dir).checks)


def verdicts() -> tuple[str, ...]:
    from assay.protocols.synth.matrix import VERDICTS

    return VERDICTS


def plan_shown(plan: str) -> str:
    """plan.md as the live page's plan tile shows it: each direction's output file by its
    name. The file lives in a temp dir of the server (deep-research.txt prints its path in
    the plan, for the agent that reads the files back), which says nothing to a reader."""
    return _OUTPUT_LINE.sub(lambda m: m.group(1) + PurePath(m.group(2).strip()).name, plan)
