"""Following run directories written by another process, cheaply.

``RunWatcher.poll()`` stats the run's files and re-reads only those whose size, mtime or
inode changed (rewritten files are replaced atomically, so the inode changes too). The
event log is followed by ``store.tail.JsonlTail`` (incrementally, a torn last line left
unread until it is completed, a replaced log read again); an event already shown (by
``seq``) is not shown again, and a torn line is reported as a problem only when asked (it
is normal for an instant while a writer is mid-append). ``RunsIndex`` does the same for
the runs list. Nothing here imports Textual: the TUI only renders what these return.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from assay.errors import AssayError
from assay.events import Event, FullResearchRequested
from assay.store.claims import CLAIMS_FILE
from assay.store.eventlog import LOG_FILE, typed_events
from assay.store.jsonl import read_jsonl
from assay.store.runs import PLAN_FILE, REPORT_FILE, RUN_FILE, RunInfo, RunStore, load_info
from assay.store.tail import FileState, JsonlTail, file_state

TORN_LINE = f"{LOG_FILE}: the last line is torn (an interrupted write) and was skipped"


def engine_of(info: RunInfo) -> str:
    """The engine a run was configured with: its model, or the extractive engine."""
    model = info.config.get("model")
    return f"model {model}" if model else "extractive engine"


@dataclass
class RunDelta:
    """What changed in a run directory since the previous poll.

    ``first`` marks the delta that carries the run's history (the first poll after it was
    opened); later deltas are live. ``records`` are the new log lines as written (the
    feed describes every one, of a type this version knows or not), ``events`` those of
    them this version reads as typed events (what the panes fold in). ``claims`` is every
    claim when claims.jsonl changed, ``texts`` the watched text files that changed (None
    when a file disappeared).
    """

    first: bool = False
    info: RunInfo | None = None
    records: list[dict[str, Any]] = field(default_factory=list)
    events: list[Event] = field(default_factory=list)
    claims: list[dict[str, Any]] | None = None
    texts: dict[str, str | None] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)

    def __bool__(self) -> bool:
        return bool(
            self.first
            or self.info
            or self.records
            or self.claims is not None
            or self.texts
            or self.problems
        )


class RunWatcher:
    """Polls one run directory; see the module docstring."""

    def __init__(self, run_dir: Path, text_files: tuple[str, ...] = (PLAN_FILE, REPORT_FILE)):
        self.dir = run_dir
        self.text_files = text_files
        self.info: RunInfo | None = None
        self.log = JsonlTail(run_dir / LOG_FILE)
        self.last_seq = -1  # the last event shown: a re-read log shows nothing twice
        self._seen: dict[str, FileState | None] = {}
        self._reported_bad = 0
        self._polled = False

    def _changed(self, name: str) -> bool:
        sig = file_state(self.dir / name)
        if name in self._seen and self._seen[name] == sig:
            return False
        self._seen[name] = sig
        return True

    def poll(self) -> RunDelta:
        delta = RunDelta(first=not self._polled)
        self._polled = True
        if self._changed(RUN_FILE):
            try:
                self.info = delta.info = load_info(self.dir)
            except AssayError as exc:
                self._seen.pop(RUN_FILE, None)  # a half-visible rewrite: try again next time
                delta.problems.append(str(exc))
        delta.records = self._new_records()
        delta.events = typed_events(delta.records)
        new_bad = self.log.bad_lines[self._reported_bad :]
        self._reported_bad = len(self.log.bad_lines)
        delta.problems += [f"{LOG_FILE}: line {n} is not a JSON record" for n in new_bad]
        if self._changed(CLAIMS_FILE):
            read = read_jsonl(self.dir / CLAIMS_FILE)
            delta.claims = read.records
            delta.problems += [f"claims.jsonl: {p}" for p in read.problems]
        for name in self.text_files:
            if self._changed(name):
                delta.texts[name] = _read_text(self.dir / name)
        return delta

    def _new_records(self) -> list[dict[str, Any]]:
        fresh = []
        for record in self.log.read_new():
            seq = record.get("seq")
            if isinstance(seq, int):
                if seq <= self.last_seq:
                    continue  # already shown (the file was rewritten or re-read)
                self.last_seq = seq
            fresh.append(record)
        return fresh

    def status(self) -> str:
        """The run's effective status (a "running" run whose process is gone is interrupted)."""
        return self.info.effective_status() if self.info else "unknown"


@dataclass(frozen=True)
class Escalation:
    """A one-shot run handing over to full research; ``run_id`` is the run that took over."""

    reason: str
    run_id: str | None
    origin: str | None = None  # the ask run it came from, when known

    @property
    def text(self) -> str:
        return f"escalated to full research: {self.reason}"


def escalation_in(event: Event) -> Escalation | None:
    """The hand-over an event records (the one-shot agent's requestFullResearch), if any."""
    if not isinstance(event, FullResearchRequested):
        return None
    return Escalation(event.reason, event.run_id)


def escalated_from(runs_root: Path, info: RunInfo) -> Escalation | None:
    """For a full run that an ask run handed over to: that hand-over, read from its log."""
    origin = (info.model_extra or {}).get("escalated_from")
    if not isinstance(origin, str) or not origin:
        return None
    for event in typed_events(read_jsonl(runs_root / origin / LOG_FILE).records):
        found = escalation_in(event)
        if found is not None and found.run_id in (None, info.id):
            return Escalation(found.reason, info.id, origin)
    return Escalation("requested by the one-shot agent", info.id, origin)


@dataclass(frozen=True)
class RunRow:
    """One line of the runs list."""

    id: str
    started: str
    topic: str
    protocol: str
    status: str
    verified: int
    total: int


class RunsIndex:
    """The runs under a home, re-reading only the run.json and claims.jsonl that changed."""

    def __init__(self, store: RunStore) -> None:
        self.store = store
        self._cache: dict[str, tuple[FileState | None, FileState | None, RunInfo, int, int]] = {}

    def ids(self) -> list[str]:
        return self.store.ids()

    def rows(self) -> list[RunRow]:
        rows, cache = [], {}
        for run_id in self.store.ids():
            directory = self.store.root / run_id
            info_sig = file_state(directory / RUN_FILE)
            claims_sig = file_state(directory / CLAIMS_FILE)
            cached = self._cache.get(run_id)
            if cached and cached[:2] == (info_sig, claims_sig):
                info, verified, total = cached[2:]
                cache[run_id] = cached
            else:
                try:
                    info = load_info(directory)
                except AssayError:
                    continue
                claims = read_jsonl(directory / CLAIMS_FILE).records
                verified = sum(1 for c in claims if c.get("status") == "verified")
                total = len(claims)
                cache[run_id] = (info_sig, claims_sig, info, verified, total)
            rows.append(
                RunRow(
                    info.id,
                    info.created_at[:19].replace("T", " "),
                    info.topic,
                    info.protocol,
                    info.effective_status(),
                    verified,
                    total,
                )
            )
        self._cache = cache  # runs that disappeared are forgotten
        return rows


def _read_text(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8", errors="replace")
    except (FileNotFoundError, IsADirectoryError):
        return None
