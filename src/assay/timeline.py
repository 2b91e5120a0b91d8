"""One-line descriptions of log records, shared by ``assay show`` and the TUI."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class TimelineEntry:
    """A log record as a person reads it: when, what kind, and one line of text."""

    seq: int
    ts: str
    kind: str
    text: str
    level: str = "info"  # info | good | warn | bad | dim


def _join(items: list[Any], limit: int = 4) -> str:
    shown = "; ".join(str(i) for i in items[:limit])
    return shown + (f"; +{len(items) - limit} more" if len(items) > limit else "")


Describer = Callable[[dict[str, Any]], tuple[str, str]]


def describe(record: dict[str, Any]) -> TimelineEntry:
    kind = str(record.get("type", "?"))
    data: dict[str, Any] = record.get("data") or {}
    describer: Describer = _DESCRIBERS.get(kind, _generic)
    text, level = describer(data)
    return TimelineEntry(int(record.get("seq", -1)), str(record.get("ts", "")), kind, text, level)


def _generic(d: dict[str, Any]) -> tuple[str, str]:
    return ", ".join(f"{k}={v}" for k, v in d.items()), "dim"


def _status_level(status: str) -> str:
    return {"verified": "good", "done": "good", "weak": "warn", "interrupted": "warn"}.get(
        status, "bad" if status in {"contradicted", "needs_review", "failed"} else "info"
    )


_DESCRIBERS: dict[str, Describer] = {
    "run.started": lambda d: (
        f"{'resumed' if d.get('resumed') else 'started'} {d.get('protocol')} run: {d.get('topic')}",
        "info",
    ),
    "run.finished": lambda d: (
        f"finished: {d.get('status')}" + (f" ({d['reason']})" if d.get("reason") else ""),
        _status_level(str(d.get("status"))),
    ),
    "phase.started": lambda d: (f"phase {d.get('phase')} started" + _detail(d), "dim"),
    "phase.finished": lambda d: (f"phase {d.get('phase')} finished" + _detail(d), "dim"),
    "plan.written": lambda d: (f"plan written: {d.get('path')} ({d.get('chars')} chars)", "info"),
    "tool.search": lambda d: (
        f"search {len(d.get('queries', []))} queries → {d.get('resultCount')} results: "
        f"{_join(d.get('queries', []))}"
        + (f" ({len(d['errors'])} failed)" if d.get("errors") else ""),
        "info",
    ),
    "tool.open_url": lambda d: (
        f"opened {d.get('title') or d.get('url')} <{d.get('url')}> → {d.get('snapshot')}",
        "info",
    ),
    "tool.read_skill": lambda d: (
        f"read skill {d.get('name')}" + (" (bootstrap correction)" if d.get("corrected") else ""),
        "warn" if d.get("corrected") else "dim",
    ),
    "tool.workspace": lambda d: (
        f"{d.get('tool')} {d.get('argument')} → {d.get('resultCount')} results",
        "info",
    ),
    "tool.request_full_research": lambda d: (
        f"escalated to full research: {d.get('reason')}"
        + (f" → run {d['runId']}" if d.get("runId") else ""),
        "warn",
    ),
    "source.skipped": lambda d: (f"skipped {d.get('url')}: {d.get('reason')}", "warn"),
    "claim.created": lambda d: (
        f"claim {d.get('id')} ({d.get('confidence')}) from {_join(d.get('sourceIds', []))}",
        "info",
    ),
    "claim.verified": lambda d: (
        f"claim {d.get('id')}: {d.get('status')}"
        + (f" — {d['reason']}" if d.get("reason") else ""),
        _status_level(str(d.get("status"))),
    ),
    "report.updated": lambda d: (f"report written ({d.get('chars')} chars)", "good"),
    "warning": lambda d: (f"warning: {d.get('message')}", "warn"),
    "error": lambda d: (f"error ({d.get('kind')}): {d.get('message')}", "bad"),
    "signal": lambda d: (
        f"{d.get('signal')}" + (f" from {d['agent']}" if d.get("agent") else "") + _detail(d),
        "info",
    ),
    "deep.search_method": lambda d: (
        f"Search method: {d.get('method') or 'none'} — {d.get('evidence')}",
        "info" if d.get("method") else "bad",
    ),
    "deep.direction_scored": lambda d: (
        f"direction {d.get('direction')} ({d.get('name')}) scored {float(d.get('score', 0)):.1f}"
        + (" after retry" if int(d.get("attempt", 1)) > 1 else "")
        + "; failed checks: "
        + (", ".join(k for k, v in (d.get("checks") or {}).items() if not v) or "none"),
        "good" if float(d.get("score", 0)) >= 6.0 else "warn",
    ),
    "deep.escalation": lambda d: (
        f"escalated direction {d.get('direction')} ({d.get('name')}): {d.get('reason')}; "
        f"retry queries: {_join(d.get('queries', []))}",
        "warn",
    ),
    "synth.checked": lambda d: (
        f"{d.get('checker')} checked {d.get('author')}'s {d.get('claimId') or 'statement'}: "
        f"{d.get('verdict')}",
        {"VERIFIED": "good", "FALSE": "bad"}.get(str(d.get("verdict")), "warn"),
    ),
    "usage": lambda d: (
        f"usage {d.get('model')}: {d.get('inputTokens')} in / {d.get('outputTokens')} out"
        + (" (estimated)" if d.get("estimated") else ""),
        "dim",
    ),
}


def _detail(d: dict[str, Any]) -> str:
    return f": {d['detail']}" if d.get("detail") else ""
