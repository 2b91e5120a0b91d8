"""``claims.jsonl``: every claim, appended the moment it exists; rewritten atomically.

The record is agent-loop.txt's ``{id, text, confidence, sourceIds, reason}`` extended with
``status``, ``evidence`` (verbatim quotes with offsets into their snapshots), ``checks``
and ``created_by``.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from assay.store.atomic import atomic_write_text
from assay.store.chain import HashChain, digest
from assay.store.jsonl import JsonlRead, append_jsonl, dumps_line, read_jsonl

CLAIMS_FILE = "claims.jsonl"
Confidence = Literal["high", "medium", "low"]
ClaimStatus = Literal["unverified", "verified", "weak", "contradicted", "needs_review"]
Stance = Literal["supports", "refutes", "neutral"]


class Evidence(BaseModel):
    """A verbatim quote from a source's snapshot, located by character offsets."""

    model_config = ConfigDict(populate_by_name=True)

    source_id: str = Field(alias="sourceId")
    quote: str
    start: int
    end: int
    stance: Stance = "supports"


class ClaimRecord(BaseModel):
    """One line of claims.jsonl."""

    model_config = ConfigDict(populate_by_name=True, extra="allow")

    id: str
    text: str
    confidence: Confidence
    source_ids: list[str] = Field(alias="sourceIds")
    reason: str = ""
    status: ClaimStatus = "unverified"
    evidence: list[Evidence] = Field(default_factory=list)
    checks: dict[str, Any] = Field(default_factory=dict)
    created_by: str = "unknown"
    status_reason: str = ""
    verified_by: str | None = None

    def to_json(self) -> dict[str, Any]:
        return self.model_dump(mode="json", by_alias=True)

    def chain_parts(self) -> dict[str, str]:
        """Digests of what only assay may change (``store.chain``): the status is left out,
        but not the judge's unsureness, from which ``verify`` re-derives it."""
        return {
            "text": digest(self.text),
            "evidence": digest([e.model_dump(mode="json") for e in self.evidence]),
            "sources": digest(self.source_ids),
            "judge_unsure": digest(bool(self.checks.get("judge_unsure", False))),
        }


@dataclass
class ClaimLedger:
    """Appends claims one by one and rewrites the file whole when statuses change."""

    run_dir: Path
    fsync: bool = True
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    @property
    def path(self) -> Path:
        return self.run_dir / CLAIMS_FILE

    def read(self) -> JsonlRead:
        return read_jsonl(self.path)

    def claims(self) -> list[ClaimRecord]:
        return [ClaimRecord.model_validate(r) for r in self.read().records]

    def next_id(self) -> str:
        return f"claim_{len(self.read().records) + 1:03d}"

    @property
    def chain(self) -> HashChain:
        return HashChain(self.run_dir, fsync=self.fsync)

    def append(self, claim: ClaimRecord) -> None:
        with self._lock, self.chain.lock():
            self.chain.append("claim", claim.id, claim.chain_parts())
            append_jsonl(self.path, claim.to_json(), fsync=self.fsync)

    def rewrite(self, claims: list[ClaimRecord]) -> None:
        """Replace the file; claims whose text or evidence changed get a new chain entry."""
        with self._lock, self.chain.lock():
            self.chain.append_changed("claim", {c.id: c.chain_parts() for c in claims})
            text = b"".join(dumps_line(c.to_json()) for c in claims).decode("utf-8")
            atomic_write_text(self.path, text, fsync=self.fsync)
