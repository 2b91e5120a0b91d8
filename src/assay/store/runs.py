"""Run directories: one per run under ``$ASSAY_HOME/runs/<run-id>/``.

    run.json          RunInfo: topic, protocol, settings snapshot, status, timestamps, usage
    plan.json         a research run's plan as data (what a resume reads)
    plan.md           the plan rendered, rewritten atomically as checkboxes are ticked
    sources.jsonl     one record per fetched source        (store.sources)
    snapshots/*.md    the saved text of each source         (store.sources)
    chain.jsonl       a hash chain over every file here     (store.chain)
    claims.jsonl      one record per claim                  (store.claims)
    run.log.jsonl     the event log                         (store.eventlog)
    report.md         the report (report.json for structured output)
    synth.json        a synth run's chief author and verdict matrix as data

Appends are durable lines; rewritten files are replaced atomically. A run whose status
says "running" but whose process is gone is shown as interrupted.
"""

from __future__ import annotations

import json
import os
import socket
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import cached_property
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from assay.__about__ import __version__
from assay.errors import AmbiguousRunError, IntegrityError, RunNotFoundError
from assay.redact import redact
from assay.store.atomic import atomic_write_text
from assay.store.chain import HashChain, file_parts, record_parts
from assay.store.claims import ClaimLedger
from assay.store.eventlog import LOG_FILE, EventLog, utc_now
from assay.store.paths import safe_child, slugify
from assay.store.sources import SourceLedger

RunStatus = Literal["running", "done", "failed", "interrupted"]
RUN_FILE = "run.json"
PLAN_FILE = "plan.md"
PLAN_STATE_FILE = "plan.json"
REPORT_FILE = "report.md"
REPORT_JSON_FILE = "report.json"
SYNTH_STATE_FILE = "synth.json"


class UsageTotals(BaseModel):
    """What a run consumed; ``estimated`` is true when any token count was estimated."""

    input_tokens: int = 0
    output_tokens: int = 0
    model_calls: int = 0
    fetches: int = 0
    cost_usd: float | None = None
    estimated: bool = False


class RunInfo(BaseModel):
    """The contents of run.json."""

    model_config = ConfigDict(extra="allow")

    id: str
    topic: str
    protocol: str
    status: RunStatus = "running"
    reason: str | None = None
    created_at: str
    updated_at: str
    finished_at: str | None = None
    assay_version: str = __version__
    config: dict[str, Any] = Field(default_factory=dict)
    usage: UsageTotals = Field(default_factory=UsageTotals)
    pid: int | None = None
    host: str | None = None
    hash_chain: bool = False
    """Whether the run keeps chain.jsonl. Informative only: ``verify`` fails every run
    without a chain, whatever this says (a forger can clear it as easily as delete one)."""

    def effective_status(self) -> RunStatus:
        """``running`` only while the recorded process is alive on this host."""
        if self.status == "running" and not _process_alive(self.pid, self.host):
            return "interrupted"
        return self.status


@dataclass
class Run:
    """An open run directory: its info, its event log and its ledgers, which it holds in
    memory for as long as it is open (``store.journal``)."""

    dir: Path
    info: RunInfo
    events: EventLog
    fsync: bool = True

    @property
    def id(self) -> str:
        return self.info.id

    @cached_property
    def claim_ledger(self) -> ClaimLedger:
        return ClaimLedger(self.dir, fsync=self.fsync)

    @cached_property
    def source_ledger(self) -> SourceLedger:
        return SourceLedger(self.dir, fsync=self.fsync)

    @cached_property
    def chain(self) -> HashChain:
        return HashChain(self.dir, fsync=self.fsync)

    def save_info(self) -> None:
        """Rewrite run.json atomically; each version is chained field by field."""
        self.info.updated_at = utc_now()
        text = redact(self.info.model_dump_json(indent=2) + "\n")  # as the file will hold it
        with self.chain.lock():
            self.chain.append("run", RUN_FILE, record_parts(json.loads(text)))
            atomic_write_text(self.dir / RUN_FILE, text, fsync=self.fsync)

    def write_file(self, name: str, text: str) -> Path:
        """Atomically (re)write a top-level run file such as plan.md or report.md; each
        version written is chained (``store.chain``), as the file holds it (secrets masked)."""
        path = safe_child(self.dir, name)
        text = redact(text)
        with self.chain.lock():
            self.chain.append("file", name, file_parts(text.encode("utf-8")))
            atomic_write_text(path, text, fsync=self.fsync)
        return path

    def finish(self, status: RunStatus, reason: str | None = None) -> None:
        self.info.status = status
        self.info.reason = reason
        self.info.finished_at = utc_now()
        self.save_info()


class RunStore:
    """All runs under one home; creates, lists and resolves them."""

    def __init__(self, home: Path, *, fsync: bool = True, secrets: frozenset[str] = frozenset()):
        self.root = home / "runs"
        self.fsync = fsync
        self.secrets = secrets

    def create(self, topic: str, protocol: str, config: dict[str, Any]) -> Run:
        self.root.mkdir(parents=True, exist_ok=True)
        directory = self._new_directory(topic)
        run_id = directory.name
        (directory / "snapshots").mkdir()
        now = utc_now()
        info = RunInfo(
            id=run_id,
            topic=topic,
            protocol=protocol,
            created_at=now,
            updated_at=now,
            config=config,
            pid=os.getpid(),
            host=socket.gethostname(),
            hash_chain=True,
        )
        HashChain(directory, fsync=self.fsync).start()
        run = Run(directory, info, self._log(directory), self.fsync)
        run.save_info()
        return run

    def open(self, run_id_or_prefix: str) -> Run:
        directory = self.resolve(run_id_or_prefix)
        return Run(directory, load_info(directory), self._log(directory), self.fsync)

    def resolve(self, prefix: str) -> Path:
        """The directory of the run whose id is ``prefix`` or starts with it."""
        wanted = prefix.strip().lower()
        ids = self.ids()
        if wanted in ids:
            return self.root / wanted
        matches = [i for i in ids if wanted and i.startswith(wanted)]
        if not matches:
            raise RunNotFoundError(f"no run matches {prefix!r} (see `assay runs`)")
        if len(matches) > 1:
            shown = ", ".join(matches[:5]) + (" ..." if len(matches) > 5 else "")
            raise AmbiguousRunError(f"{prefix!r} matches {len(matches)} runs: {shown}")
        return self.root / matches[0]

    def ids(self) -> list[str]:
        if not self.root.is_dir():
            return []
        return sorted(p.name for p in self.root.iterdir() if (p / RUN_FILE).is_file())

    def list(self) -> list[RunInfo]:
        infos = []
        for run_id in self.ids():
            try:
                infos.append(load_info(self.root / run_id))
            except IntegrityError:
                continue
        return infos

    def _log(self, directory: Path) -> EventLog:
        return EventLog(directory / LOG_FILE, fsync=self.fsync, secrets=self.secrets)

    def _new_directory(self, topic: str) -> Path:
        """A run directory no other run has: ``mkdir`` itself decides, so two runs of one
        topic started in the same second (a batch's threads, two workers) never share one."""
        stamp = datetime.now(UTC).strftime("%Y%m%d-%H%M%S")
        base = f"{stamp}-{slugify(topic, max_length=40, fallback='run')}"
        run_id, counter = base, 2
        while True:
            directory = safe_child(self.root, run_id)
            try:
                directory.mkdir()
            except FileExistsError:
                run_id, counter = f"{base}-{counter}", counter + 1
                continue
            return directory


def load_info(directory: Path) -> RunInfo:
    path = directory / RUN_FILE
    try:
        return RunInfo.model_validate_json(path.read_bytes())
    except FileNotFoundError:
        raise RunNotFoundError(f"{directory.name}: no run.json") from None
    except ValidationError as exc:
        raise IntegrityError(f"{path}: unreadable run.json ({exc.error_count()} errors)") from None


def _process_alive(pid: int | None, host: str | None) -> bool:
    if pid is None:
        return False
    if host != socket.gethostname():
        return True  # another machine's process: nothing here can tell, so trust run.json
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
