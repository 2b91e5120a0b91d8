"""``claims.jsonl``: every claim, appended the moment it exists; rewritten atomically.

The record is agent-loop.txt's ``{id, text, confidence, sourceIds, reason}`` extended with
``status``, ``evidence`` (verbatim quotes with offsets into their snapshots), ``checks``,
``created_by``, and, when the writer knew them, ``relevance`` and ``stated_as``.

A line is written back exactly as it was read (a rewrite of the file re-dumps every
claim, and ``store.chain`` holds a digest of each field as first written): the optional
fields are left out when absent, and a recorded relevance keeps the keys it was written
with. Lines from before these were typed fields (the same keys, stored as untyped extras)
read into the fields unchanged.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    SerializationInfo,
    SerializerFunctionWrapHandler,
    field_serializer,
    model_serializer,
)

from assay.statuses import ClaimStatus
from assay.store.chain import HashChain, written_parts
from assay.store.journal import Journal
from assay.store.jsonl import JsonlRead, read_jsonl

CLAIMS_FILE = "claims.jsonl"
Confidence = Literal["high", "medium", "low"]
Stance = Literal["supports", "refutes", "neutral"]


class Evidence(BaseModel):
    """A verbatim quote from a source's snapshot, located by character offsets."""

    model_config = ConfigDict(populate_by_name=True)

    source_id: str = Field(alias="sourceId")
    quote: str
    start: int
    end: int
    stance: Stance = "supports"


class RecordedRelevance(BaseModel):
    """A claim's relevance as its writer recorded it (``reading.relevance.Relevance``'s
    ``to_json``): the score, how it was computed, whether it passed the threshold then, and
    the question or sub-question it was scored against ("" for the run's question)."""

    model_config = ConfigDict(frozen=True)

    score: float = 0.0
    """0.0 when the line does not say (as the readers took a missing score before)."""
    method: str = ""
    relevant: bool | None = None
    """As judged when recorded (the threshold may have been refitted since); None when
    the line does not say, which counts as relevant."""
    target: str = ""


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
    relevance: RecordedRelevance | None = None
    stated_as: str | None = None
    """The claim as its source stated it, when its text was rewritten to stand alone
    (``claims.standalone``): the judges read this."""

    @field_serializer("relevance")
    def _relevance_as_written(self, value: RecordedRelevance | None) -> dict[str, Any] | None:
        # only the keys the line had (or the writer gave): the chained digest is of those
        return None if value is None else value.model_dump(mode="json", exclude_unset=True)

    @model_serializer(mode="wrap")
    def _without_absent(
        self, handler: SerializerFunctionWrapHandler, _info: SerializationInfo
    ) -> dict[str, Any]:
        dumped: dict[str, Any] = handler(self)
        for name in _OPTIONAL:
            if dumped.get(name) is None:
                dumped.pop(name, None)
        return dumped

    @property
    def judged_text(self) -> str:
        """The words the judges read: as stated by the source, else the recorded text."""
        return self.stated_as or self.text

    def to_json(self) -> dict[str, Any]:
        return self.model_dump(mode="json", by_alias=True)

    def chain_parts(self) -> dict[str, str]:
        """A digest of every field of the line (``store.chain``): its status and reason too,
        which ``verify`` also re-derives, and whatever a report or an answer reads."""
        return written_parts(self.to_json())


_OPTIONAL = ("relevance", "stated_as")
"""Fields left out of a line when absent, as lines written before they existed lack them."""


@dataclass
class ClaimLedger:
    """The run's claims in memory, claims.jsonl their journal (``store.journal``): each
    claim appended the moment it exists; changed claims rewritten in one atomic step, at
    once (``update``) or at the next ``flush`` (``stage``)."""

    run_dir: Path
    fsync: bool = True
    _journal: Journal[ClaimRecord] = field(init=False, repr=False)
    chain: HashChain = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self.chain = HashChain(self.run_dir, fsync=self.fsync)
        self._journal = Journal(
            self.run_dir / CLAIMS_FILE,
            parse=ClaimRecord.model_validate,
            dump=ClaimRecord.to_json,
            key=lambda claim: claim.id,
            aliases=lambda claim: (claim.text.casefold(),),
            fsync=self.fsync,
        )

    @property
    def path(self) -> Path:
        return self.run_dir / CLAIMS_FILE

    def read(self) -> JsonlRead:
        """The file as it is on disk, with its torn or bad lines named (for audits)."""
        return read_jsonl(self.path)

    def claims(self) -> list[ClaimRecord]:
        return self._journal.items()

    def get(self, claim_id: str) -> ClaimRecord | None:
        return self._journal.get(claim_id)

    def with_text(self, text: str) -> ClaimRecord | None:
        """The first claim that reads ``text`` (case aside)."""
        return self._journal.find(text.casefold())

    def next_id(self) -> str:
        return f"claim_{len(self._journal) + 1:03d}"

    def append(self, claim: ClaimRecord) -> None:
        with self._journal.lock, self.chain.lock():
            self.chain.append("claim", claim.id, claim.chain_parts())
            self._journal.append([claim])

    def stage(self, claims: Iterable[ClaimRecord]) -> None:
        """Change claims (by id) in memory; the next ``flush`` writes them."""
        self._journal.stage(claims)

    def update(self, claims: Iterable[ClaimRecord]) -> None:
        """Change claims (by id) and write the file now."""
        with self._journal.lock:
            self.stage(claims)
            self.flush()

    def flush(self) -> None:
        """Write the staged claims in one atomic replacement; each changed one gets a new
        chain entry first."""
        with self._journal.lock, self.chain.lock():
            staged = self._journal.staged()
            if staged:
                self.chain.append_changed("claim", {c.id: c.chain_parts() for c in staged})
                self._journal.flush()

    def rewrite(self, claims: list[ClaimRecord]) -> None:
        """Replace the whole file with ``claims``; changed ones get a new chain entry."""
        with self._journal.lock, self.chain.lock():
            self.chain.append_changed("claim", {c.id: c.chain_parts() for c in claims})
            self._journal.replace(claims)
