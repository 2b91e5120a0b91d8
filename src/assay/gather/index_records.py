"""What the local index hands back: search hits, what an add did, and its size."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any


@dataclass(frozen=True)
class IndexHit:
    """One search hit; ``url`` is the document's own URL, else ``index://<doc_id>``.

    ``score``: higher is better. A hybrid search gives the fused reciprocal-rank score
    in (0, 1] (1.0: the best passage by words and by meaning, see ``gather.fusion``); a
    search by words only gives bm25's score, negated so that higher is better (unbounded).
    """

    doc_id: str
    title: str
    url: str
    snippet: str
    score: float

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class AddReport:
    """What ``add_paths`` did: files read, documents stored, and files skipped with why."""

    files: int = 0
    documents: int = 0
    skipped: list[tuple[str, str]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    """What was kept only in part: a document cut at the size cap, a bad JSONL line, vectors
    of another model made again."""
    vectors: int = 0
    """Passage vectors made (the added documents', and any older passage's that had none)."""

    def to_dict(self) -> dict[str, Any]:
        return {
            "files": self.files,
            "documents": self.documents,
            "skipped": self.skipped,
            "notes": self.notes,
            "vectors": self.vectors,
        }


@dataclass(frozen=True)
class IndexStats:
    path: str
    documents: int
    sources: int
    size_bytes: int
    content_types: dict[str, int]
    passages: int = 0
    vectors: int = 0
    """Passages with a vector (of whichever model made the index's vectors)."""

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)
