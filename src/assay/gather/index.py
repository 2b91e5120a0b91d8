"""The local full-text index: an SQLite FTS5 table of the user's documents.

Each document is stored whole (``docs``: what ``get`` returns and ``index://`` URLs read)
and searched as passages of at most ``PASSAGE_CHARS`` characters (``passages``), so no
search reads a huge row: a document's rank is its best passage's, and its snippet comes
from that passage. A search can be stopped from another thread (``cancel``) and ends at
its ``deadline``; a document over ``MAX_DOCUMENT_CHARS`` is cut there, and the add says so.

Ranking is FTS5's bm25 (title weighted above body). Any user query is safe: it is cut into
word tokens, each token is quoted as an FTS5 string and the tokens are OR-ed, so no input
can be read as FTS5 syntax. ``LocalIndex(":memory:")`` keeps the index in memory (the lab
uses this). One connection is shared by all threads behind a lock.
"""

from __future__ import annotations

import re
import sqlite3
import threading
import time
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any, Self

from assay.errors import BadInputError, ProviderError
from assay.gather.documents import Document, iter_files, read_file
from assay.gather.passages import split_passages

__all__ = ["AddReport", "Document", "IndexHit", "IndexStats", "LocalIndex", "fts_query"]

INDEX_FILE = "index.sqlite"
MEMORY = ":memory:"
MAX_QUERY_TOKENS = 64
MAX_DOCUMENT_CHARS = 50_000_000
_PROGRESS_STEPS = 1_000  # SQLite VM steps between checks of the deadline and cancel flag
_TOKEN = re.compile(r"\w+")
_SCHEMA = """
CREATE TABLE IF NOT EXISTS docs (
    id INTEGER PRIMARY KEY,
    doc_id TEXT NOT NULL UNIQUE,
    title TEXT NOT NULL,
    text TEXT NOT NULL,
    url TEXT,
    source_path TEXT,
    content_type TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS docs_source ON docs(source_path);
CREATE TABLE IF NOT EXISTS passages (
    id INTEGER PRIMARY KEY,
    doc INTEGER NOT NULL,
    title TEXT NOT NULL,
    text TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS passages_doc ON passages(doc);
CREATE VIRTUAL TABLE IF NOT EXISTS passages_fts USING fts5(
    title, text, content='passages', content_rowid='id', tokenize='unicode61 remove_diacritics 2'
);
CREATE TRIGGER IF NOT EXISTS passages_ai AFTER INSERT ON passages BEGIN
    INSERT INTO passages_fts(rowid, title, text) VALUES (new.id, new.title, new.text);
END;
CREATE TRIGGER IF NOT EXISTS passages_ad AFTER DELETE ON passages BEGIN
    INSERT INTO passages_fts(passages_fts, rowid, title, text)
        VALUES ('delete', old.id, old.title, old.text);
END;
CREATE TRIGGER IF NOT EXISTS docs_passages_ad AFTER DELETE ON docs BEGIN
    DELETE FROM passages WHERE doc = old.id;
END;
"""
# Indexes written before passages searched whole documents through these; they go on open.
_OLD_SCHEMA = """
DROP TRIGGER IF EXISTS docs_ai;
DROP TRIGGER IF EXISTS docs_ad;
DROP TRIGGER IF EXISTS docs_au;
DROP TABLE IF EXISTS docs_fts;
"""
_INSERT = """
INSERT INTO docs (doc_id, title, text, url, source_path, content_type) VALUES (?, ?, ?, ?, ?, ?)
"""
# Every matching passage's rank (cheap: no snippet); the best passage of each doc wins.
_MATCH = """
SELECT p.doc, passages_fts.rowid, bm25(passages_fts, 4.0, 1.0) AS rank
FROM passages_fts JOIN passages AS p ON p.id = passages_fts.rowid
WHERE passages_fts MATCH ? ORDER BY rank
"""
_SNIPPET = """
SELECT rowid, snippet(passages_fts, 1, '', '', '…', 32) FROM passages_fts
WHERE passages_fts MATCH ? AND rowid = ?
"""
_COLUMNS = "doc_id, title, text, url, source_path, content_type"


@dataclass(frozen=True)
class IndexHit:
    """One search hit; ``url`` is the document's own URL, else ``index://<doc_id>``."""

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
    """What was kept only in part: a document cut at the size cap, a bad JSONL line."""

    def to_dict(self) -> dict[str, Any]:
        return {
            "files": self.files,
            "documents": self.documents,
            "skipped": self.skipped,
            "notes": self.notes,
        }


@dataclass(frozen=True)
class IndexStats:
    path: str
    documents: int
    sources: int
    size_bytes: int
    content_types: dict[str, int]

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def fts_query(query: str) -> str:
    """A safe FTS5 MATCH expression: each word token quoted, OR-ed; '' when none."""
    seen: dict[str, None] = {}
    for token in _TOKEN.findall(query.casefold()):
        seen.setdefault(token, None)
        if len(seen) >= MAX_QUERY_TOKENS:
            break
    return " OR ".join('"' + t.replace('"', '""') + '"' for t in seen)


def index_url(doc: Document | str) -> str:
    doc_id = doc if isinstance(doc, str) else doc.doc_id
    return f"index://{doc_id}"


class LocalIndex:
    """A full-text index at ``path`` (created on first use), or in memory for ``":memory:"``."""

    def __init__(self, path: Path | str) -> None:
        self.path = str(path)
        self._memory = self.path == MEMORY
        if not self._memory:
            Path(self.path).parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        self._db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
        try:
            if not self._memory:
                self._db.execute("PRAGMA journal_mode=WAL")
                self._db.execute("PRAGMA synchronous=NORMAL")
            self._migrate()
        except sqlite3.DatabaseError as exc:
            self._db.close()
            raise BadInputError(f"{self.path}: not a usable index: {exc}") from None

    def _migrate(self) -> None:
        """Create the schema; an index from before passages gets its passages built once."""
        old = self._db.execute("SELECT 1 FROM sqlite_master WHERE name = 'docs_fts'").fetchone()
        self._db.executescript(_OLD_SCHEMA + _SCHEMA)
        if old:
            rows = self._db.execute("SELECT id, title, text FROM docs").fetchall()
            with self._transaction():
                for rowid, title, text in rows:
                    self._insert_passages(rowid, title, text)

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def add_documents(self, docs: Iterable[Document]) -> int:
        """Insert or replace documents by doc id, in one transaction; returns how many."""
        listed = list(docs)
        with self._lock, self._transaction():
            self._store(listed)
        return len(listed)

    def add_paths(self, paths: Sequence[Path]) -> AddReport:
        """Read files and folders (recursively) and store their documents in one transaction.

        Re-adding a file replaces its documents. Unreadable files are skipped, not fatal;
        a path that does not exist is a BadInputError and nothing is stored.
        """
        files, docs, skipped, notes = 0, list[Document](), [], list[str]()
        for path in list(iter_files(paths)):
            try:
                found = read_file(path, problems=notes)
            except BadInputError as exc:
                skipped.append((str(path), exc.message))
                continue
            files += 1
            docs.extend(_capped(doc, notes) for doc in found)
        sources = sorted({d.source_path for d in docs if d.source_path})
        with self._lock, self._transaction():
            self._db.executemany("DELETE FROM docs WHERE source_path = ?", [(s,) for s in sources])
            self._store(docs)
        return AddReport(files=files, documents=len(docs), skipped=skipped, notes=notes)

    def _store(self, docs: Sequence[Document]) -> None:
        """Insert or replace each document by doc id, with its passages (in a transaction)."""
        for doc in docs:
            self._db.execute("DELETE FROM docs WHERE doc_id = ?", (doc.doc_id,))
            cursor = self._db.execute(
                _INSERT, (doc.doc_id, doc.title, doc.text, doc.url, doc.source_path,
                          doc.content_type),
            )  # fmt: skip
            assert cursor.lastrowid is not None
            self._insert_passages(cursor.lastrowid, doc.title, doc.text)

    def _insert_passages(self, rowid: int, title: str, text: str) -> None:
        self._db.executemany(
            "INSERT INTO passages (doc, title, text) VALUES (?, ?, ?)",
            [(rowid, title, passage) for passage in split_passages(text)],
        )

    def search(
        self,
        query: str,
        limit: int = 10,
        *,
        deadline: float | None = None,
        cancel: threading.Event | None = None,
    ) -> list[IndexHit]:
        """The best ``limit`` documents for ``query`` by bm25; no hits for an empty query.

        ``deadline`` (a ``time.monotonic()`` instant) and ``cancel`` stop a search that is
        still running: it raises ProviderError instead of holding its thread.
        """
        expression = fts_query(query)
        if not expression or limit <= 0:
            return []

        def stop() -> int:
            late = deadline is not None and time.monotonic() > deadline
            return int(late or (cancel is not None and cancel.is_set()))

        with self._lock:
            self._db.set_progress_handler(stop, _PROGRESS_STEPS)
            try:
                return self._best(expression, limit)
            except sqlite3.OperationalError as exc:
                if "interrupted" not in str(exc):
                    raise
                cancelled = cancel is not None and cancel.is_set()
                why = "was cancelled" if cancelled else "ran out of time"
                raise ProviderError(f"local index: the search for {query[:60]!r} {why}") from None
            finally:
                self._db.set_progress_handler(None, 0)

    def _best(self, expression: str, limit: int) -> list[IndexHit]:
        best: dict[int, tuple[int, float]] = {}
        for doc, passage, rank in self._db.execute(_MATCH, (expression,)):
            best.setdefault(doc, (passage, rank))
            if len(best) >= limit:
                break
        hits = []
        for doc, (passage, rank) in best.items():
            doc_id, title, url = self._db.execute(
                "SELECT doc_id, title, url FROM docs WHERE id = ?", (doc,)
            ).fetchone()
            row = self._db.execute(_SNIPPET, (expression, passage)).fetchone()
            snippet = " ".join(row[1].split()) if row else ""
            hits.append(IndexHit(doc_id, title, url or index_url(doc_id), snippet, -rank))
        return hits

    def get(self, doc_id: str) -> Document | None:
        with self._lock:
            row = self._db.execute(
                f"SELECT {_COLUMNS} FROM docs WHERE doc_id = ?",  # noqa: S608 - constant
                (doc_id,),
            ).fetchone()
        return Document(*row) if row else None

    def documents(self) -> Iterator[Document]:
        """Every document, in insertion order."""
        with self._lock:
            rows = self._db.execute(f"SELECT {_COLUMNS} FROM docs ORDER BY id").fetchall()  # noqa: S608
        for row in rows:
            yield Document(*row)

    def remove(self, target: str) -> int:
        """Remove by doc id, by source path, or every source under a folder; returns the count."""
        resolved = str(Path(target).expanduser().resolve())
        prefix = resolved.rstrip("/") + "/"
        pattern = re.sub(r"([\\%_])", r"\\\1", prefix) + "%"
        with self._lock, self._transaction():
            cursor = self._db.execute(
                "DELETE FROM docs WHERE doc_id = ? OR source_path IN (?, ?) "
                "OR source_path LIKE ? ESCAPE '\\'",
                (target, target, resolved, pattern),
            )
        return cursor.rowcount

    def stats(self) -> IndexStats:
        with self._lock:
            documents, sources = self._db.execute(
                "SELECT count(*), count(DISTINCT source_path) FROM docs"
            ).fetchone()
            types = self._db.execute(
                "SELECT content_type, count(*) FROM docs GROUP BY content_type ORDER BY 1"
            ).fetchall()
        size = 0
        if not self._memory:
            size = sum(
                p.stat().st_size for p in (Path(self.path), Path(self.path + "-wal")) if p.exists()
            )
        return IndexStats(self.path, documents, sources, size, dict(types))

    def _transaction(self) -> _Transaction:
        return _Transaction(self._db)


class _Transaction:
    """BEGIN … COMMIT, or ROLLBACK when the block raises (the connection is in autocommit)."""

    def __init__(self, db: sqlite3.Connection) -> None:
        self._db = db

    def __enter__(self) -> None:
        self._db.execute("BEGIN IMMEDIATE")

    def __exit__(self, exc_type: object, *rest: object) -> None:
        self._db.execute("ROLLBACK" if exc_type else "COMMIT")


def _capped(doc: Document, notes: list[str]) -> Document:
    if len(doc.text) <= MAX_DOCUMENT_CHARS:
        return doc
    where = doc.source_path or doc.doc_id
    notes.append(
        f"{where}: {doc.title!r} has {len(doc.text):,} characters; "
        f"indexed the first {MAX_DOCUMENT_CHARS:,}"
    )
    return replace(doc, text=doc.text[:MAX_DOCUMENT_CHARS])
