"""``sources.jsonl`` and ``snapshots/``: every fetched source, saved before it is used.

A snapshot is the source's text with a front-matter header; its sha256 covers the text
after the header, so ``assay verify`` can tell whether a snapshot was altered, and the
header must read exactly as ``render_snapshot`` writes it from the source's line.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict

from assay.redact import redact
from assay.store.chain import HashChain, written_parts
from assay.store.journal import Journal
from assay.store.paths import safe_child, unique_name, url_slug

SOURCES_FILE = "sources.jsonl"
SNAPSHOT_DIR = "snapshots"
_FRONT_MATTER_END = "\n---\n\n"


class SourceRecord(BaseModel):
    """One line of sources.jsonl (a ``relevance`` to the question is added once read, a
    web source has its domain's ``reliability`` kind: ``gather/reliability.py``, and a
    paper a scholarly provider found its ``authors``, ``venue``, ``year`` and ``doi``)."""

    model_config = ConfigDict(extra="allow")

    id: str
    url: str
    final_url: str
    title: str | None
    snapshot: str
    accessed_at: str
    sha256: str
    domain: str
    content_type: str

    def chain_parts(self) -> dict[str, str]:
        """A digest of every field of the line (``store.chain``). Origins are derived from
        ``final_url``, never from ``domain``, but a relabelled domain is still an edit."""
        return written_parts(self.model_dump(mode="json"))


def text_sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def render_snapshot(record: SourceRecord, text: str) -> str:
    header = {
        "url": record.url,
        "final_url": record.final_url,
        "title": record.title,
        "accessed_at": record.accessed_at,
        "sha256": record.sha256,
        "content_type": record.content_type,
    }
    lines = [f"{key}: {json.dumps(value, ensure_ascii=False)}" for key, value in header.items()]
    return "---\n" + "\n".join(lines) + _FRONT_MATTER_END + text


def snapshot_text(snapshot: str) -> str:
    """The text of a snapshot file's contents, without its front matter."""
    if snapshot.startswith("---\n") and _FRONT_MATTER_END in snapshot:
        return snapshot.split(_FRONT_MATTER_END, 1)[1]
    return snapshot


@dataclass
class SourceLedger:
    """The run's sources in memory, sources.jsonl their journal (``store.journal``),
    indexed by id and by URL; each snapshot is written before its record."""

    run_dir: Path
    fsync: bool = True
    _journal: Journal[SourceRecord] = field(init=False, repr=False)
    _chain: HashChain = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self._chain = HashChain(self.run_dir, fsync=self.fsync)
        self._journal = Journal(
            self.run_dir / SOURCES_FILE,
            parse=SourceRecord.model_validate,
            dump=lambda record: record.model_dump(mode="json"),
            key=lambda record: record.id,
            aliases=lambda record: (record.url, record.final_url),
            fsync=self.fsync,
        )

    @property
    def path(self) -> Path:
        return self.run_dir / SOURCES_FILE

    def records(self) -> list[SourceRecord]:
        return self._journal.items()

    def get(self, source_id: str) -> SourceRecord | None:
        return self._journal.get(source_id)

    def by_url(self, url: str) -> SourceRecord | None:
        """The first source fetched from ``url``, or redirected to it."""
        return self._journal.find(url)

    def add(
        self,
        *,
        url: str,
        final_url: str,
        title: str | None,
        text: str,
        content_type: str,
        accessed_at: str,
        reliability: str | None = None,
        bibliography: Mapping[str, object] | None = None,
    ) -> SourceRecord:
        text = redact(text)  # before hashing, so the snapshot still matches its sha256
        with self._journal.lock:
            snapshots = self.run_dir / SNAPSHOT_DIR
            snapshots.mkdir(exist_ok=True)
            # A key in the URL must not name the file (nor differ from the masked line).
            name = unique_name(snapshots, url_slug(redact(final_url)), ".md")
            record = SourceRecord(
                id=f"src_{len(self._journal) + 1:02d}",
                url=url,
                final_url=final_url,
                title=title,
                snapshot=f"{SNAPSHOT_DIR}/{name}",
                accessed_at=accessed_at,
                sha256=text_sha256(text),
                domain=(urlsplit(final_url).hostname or "").lower(),
                content_type=content_type,
                **({"reliability": reliability} if reliability is not None else {}),
                **(bibliography or {}),
            )
            path = safe_child(snapshots, name)
            # Masked like the record's line, so the header still reads as the line says.
            path.write_text(redact(render_snapshot(record, text)), encoding="utf-8")
            with self._chain.lock():
                self._chain.append("source", record.id, record.chain_parts())
                self._journal.append([record])
            return self._journal.get(record.id) or record

    def annotate(self, source_id: str, **fields: object) -> None:
        """Add ``fields`` (its relevance) to one source's line, chained; the file is
        rewritten atomically, so a crash leaves the old line or the new one."""
        with self._journal.lock, self._chain.lock():
            record = self._journal.get(source_id)
            if record is not None:
                annotated = SourceRecord.model_validate(record.model_dump(mode="json") | fields)
                if annotated != record:  # (compared in memory: no read of the chain)
                    self._chain.append("source", source_id, annotated.chain_parts())
                self._journal.stage([annotated])
                self._journal.flush()

    def read_snapshot(self, record: SourceRecord) -> str:
        """The snapshot's text (front matter removed)."""
        return snapshot_text(self.read_snapshot_file(record))

    def read_snapshot_file(self, record: SourceRecord) -> str:
        """The snapshot file whole, front matter included (UnsafePathError for a path that
        leaves the run directory)."""
        parts = Path(record.snapshot).parts
        return safe_child(self.run_dir, *parts).read_text(encoding="utf-8")
