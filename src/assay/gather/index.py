"""The local full-text index: an SQLite FTS5 table of the user's documents.

Ranking is FTS5's bm25 (title weighted above body). Any user query is safe: it is cut into
word tokens, each token is quoted as an FTS5 string and the tokens are OR-ed, so no input
can be read as FTS5 syntax. ``LocalIndex(":memory:")`` keeps the index in memory (the lab
uses this). One connection is shared by all threads behind a lock.
"""

from __future__ import annotations

import re
import sqlite3
import threading
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Self

from assay.errors import BadInputError
from assay.gather.documents import Document, iter_files, read_file

__all__ = ["AddReport", "Document", "IndexHit", "IndexStats", "LocalIndex", "fts_query"]

INDEX_FILE = "index.sqlite"
MEMORY = ":memory:"
MAX_QUERY_TOKENS = 64
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
CREATE VIRTUAL TABLE IF NOT EXISTS docs_fts USING fts5(
    title, text, content='docs', content_rowid='id', tokenize='unicode61 remove_diacritics 2'
);
CREATE TRIGGER IF NOT EXISTS docs_ai AFTER INSERT ON docs BEGIN
    INSERT INTO docs_fts(rowid, title, text) VALUES (new.id, new.title, new.text);
END;
CREATE TRIGGER IF NOT EXISTS docs_ad AFTER DELETE ON docs BEGIN
    INSERT INTO docs_fts(docs_fts, rowid, title, text)
        VALUES ('delete', old.id, old.title, old.text);
END;
CREATE TRIGGER IF NOT EXISTS docs_au AFTER UPDATE ON docs BEGIN
    INSERT INTO docs_fts(docs_fts, rowid, title, text)
        VALUES ('delete', old.id, old.title, old.text);
    INSERT INTO docs_fts(rowid, title, text) VALUES (new.id, new.title, new.text);
END;
"""
_UPSERT = """
INSERT INTO docs (doc_id, title, text, url, source_path, content_type) VALUES (?, ?, ?, ?, ?, ?)
ON CONFLICT(doc_id) DO UPDATE SET title = excluded.title, text = excluded.text,
    url = excluded.url, source_path = excluded.source_path, content_type = excluded.content_type
"""
_SEARCH = """
SELECT d.doc_id, d.title, d.url, snippet(docs_fts, 1, '', '', '…', 32), bm25(docs_fts, 4.0, 1.0)
FROM docs_fts JOIN docs AS d ON d.id = docs_fts.rowid
WHERE docs_fts MATCH ? ORDER BY bm25(docs_fts, 4.0, 1.0) LIMIT ?
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

    def to_dict(self) -> dict[str, Any]:
        return {"files": self.files, "documents": self.documents, "skipped": self.skipped}


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
            self._db.executescript(_SCHEMA)
        except sqlite3.DatabaseError as exc:
            self._db.close()
            raise BadInputError(f"{self.path}: not a usable index: {exc}") from None

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def add_documents(self, docs: Iterable[Document]) -> int:
        """Insert or replace documents by doc id, in one transaction; returns how many."""
        rows = [(d.doc_id, d.title, d.text, d.url, d.source_path, d.content_type) for d in docs]
        with self._lock, self._transaction():
            self._db.executemany(_UPSERT, rows)
        return len(rows)

    def add_paths(self, paths: Sequence[Path]) -> AddReport:
        """Read files and folders (recursively) and store their documents in one transaction.

        Re-adding a file replaces its documents. Unreadable files are skipped, not fatal;
        a path that does not exist is a BadInputError and nothing is stored.
        """
        files, docs, skipped = 0, [], []
        for path in list(iter_files(paths)):
            try:
                found = read_file(path)
            except BadInputError as exc:
                skipped.append((str(path), exc.message))
                continue
            files += 1
            docs.extend(found)
        sources = sorted({d.source_path for d in docs if d.source_path})
        rows = [(d.doc_id, d.title, d.text, d.url, d.source_path, d.content_type) for d in docs]
        with self._lock, self._transaction():
            self._db.executemany("DELETE FROM docs WHERE source_path = ?", [(s,) for s in sources])
            self._db.executemany(_UPSERT, rows)
        return AddReport(files=files, documents=len(rows), skipped=skipped)

    def search(self, query: str, limit: int = 10) -> list[IndexHit]:
        """The best ``limit`` documents for ``query`` by bm25; no hits for an empty query."""
        expression = fts_query(query)
        if not expression or limit <= 0:
            return []
        with self._lock:
            rows = self._db.execute(_SEARCH, (expression, limit)).fetchall()
        return [
            IndexHit(doc_id, title, url or index_url(doc_id), " ".join(snippet.split()), -rank)
            for doc_id, title, url, snippet, rank in rows
        ]

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
