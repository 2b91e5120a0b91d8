"""The local full-text index: an SQLite FTS5 table of the user's documents.

Each document is stored whole (``docs``: what ``get`` returns and ``index://`` URLs read)
and searched as passages of at most ``PASSAGE_CHARS`` characters (``passages``), so no
search reads a huge row: a document's rank is its best passage's, and its snippet comes
from that passage. A search can be stopped from another thread (``cancel``) and ends at
its ``deadline``; a document over ``MAX_DOCUMENT_CHARS`` is cut there, and the add says so.

Opened with an ``embedder``, the index also keeps a vector per passage (``gather.vectors``)
and searches hybrid: FTS5's bm25 ranking (title weighted above body) and the passages'
cosine with the query, fused by reciprocal rank (``gather.fusion``), a document ranked by
its best passage. Without one, or with ``lexical=True``, or while no passage has a vector of
the embedder's model, it searches by bm25 alone. Any user query is safe: it is cut into
word tokens, each token is quoted as an FTS5 string and the tokens are OR-ed, so no input
can be read as FTS5 syntax. ``LocalIndex(":memory:")`` keeps the index in memory (the lab
uses this, without vectors: it stands in for a web search engine). One connection is
shared by all threads behind a lock.
"""

from __future__ import annotations

import re
import sqlite3
import threading
import time
import uuid
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Self

from assay.errors import BadInputError, ProviderError
from assay.gather.documents import Document, iter_files, read_file
from assay.gather.fusion import DEFAULT_FUSION, Fusion
from assay.gather.index_ranking import by_characters, by_words, fts_query, hits, hybrid, index_url
from assay.gather.index_records import AddReport, IndexHit, IndexStats
from assay.gather.passages import split_passages
from assay.gather.transaction import Transaction
from assay.gather.vectors import (
    VECTOR_SCHEMA,
    PassageEmbedder,
    PassageVectors,
    VectorStatus,
    status_of,
    touch,
)
from assay.text import has_cjk

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

__all__ = [
    "AddReport",
    "Document",
    "IndexHit",
    "IndexStats",
    "LocalIndex",
    "fts_query",
    "index_url",
]

Progress = Callable[[int, int], None]

INDEX_FILE = "index.sqlite"
MEMORY = ":memory:"
MAX_DOCUMENT_CHARS = 50_000_000
_PROGRESS_STEPS = 1_000  # SQLite VM steps between checks of the deadline and cancel flag
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
_COLUMNS = "doc_id, title, text, url, source_path, content_type"


class LocalIndex:
    """A full-text index at ``path`` (created on first use), or in memory for ``":memory:"``.

    With an ``embedder`` (``assay.reading.embed.default_embedder()``), adding documents also
    makes their passages' vectors and searches are hybrid; ``fusion`` sets how.
    """

    def __init__(
        self,
        path: Path | str,
        *,
        embedder: PassageEmbedder | None = None,
        fusion: Fusion = DEFAULT_FUSION,
    ) -> None:
        self.path = str(path)
        self.fusion = fusion
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
        # The vector matrix is cached per process by this key: a file's own path, or a
        # name no other in-memory index has.
        key = f"{MEMORY}{uuid.uuid4().hex}" if self._memory else str(Path(self.path).resolve())
        self._vectors = (
            PassageVectors(self._db, self._lock, key, embedder) if embedder is not None else None
        )

    def _migrate(self) -> None:
        """Create the schema; an index from before passages gets its passages built once.

        An index from before vectors gets the (empty) vector tables: its passages are
        searched by their words until ``fill_vectors`` gives them vectors."""
        old = self._db.execute("SELECT 1 FROM sqlite_master WHERE name = 'docs_fts'").fetchone()
        self._db.executescript(_OLD_SCHEMA + _SCHEMA + VECTOR_SCHEMA)
        if old:
            rows = self._db.execute("SELECT id, title, text FROM docs").fetchall()
            with self._transaction():
                for rowid, title, text in rows:
                    self._insert_passages(rowid, title, text)
                touch(self._db)

    def close(self) -> None:
        with self._lock:
            self._db.close()
        if self._memory and self._vectors is not None:
            self._vectors.forget()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def add_documents(self, docs: Iterable[Document]) -> int:
        """Insert or replace documents by doc id, in one transaction, then make the vectors
        their passages lack (when the index has an embedder); returns how many documents."""
        listed = list(docs)
        with self._lock, self._transaction():
            self._store(listed)
        self.fill_vectors()
        return len(listed)

    def add_paths(self, paths: Sequence[Path], *, progress: Progress | None = None) -> AddReport:
        """Read files and folders (recursively) and store their documents in one transaction,
        then make the vectors their passages lack (``progress`` hears (done, total)).

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
        vectors, changed = self.fill_vectors(progress)
        return AddReport(files, len(docs), skipped, notes + changed, vectors)

    def fill_vectors(self, progress: Progress | None = None) -> tuple[int, list[str]]:
        """Make the vector of every passage that has none (of the embedder's model: vectors
        of another are dropped first); how many were made, and notes. Nothing without an
        embedder."""
        if self._vectors is None:
            return 0, []
        return self._vectors.fill(progress)

    def vector_status(self) -> VectorStatus:
        """Passages, vectors and models; its ``note`` says when search goes by words only."""
        ours = self._vectors.embedder.model_sha256 if self._vectors is not None else None
        with self._lock:
            return status_of(self._db, ours)

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
        touch(self._db)

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
        lexical: bool = False,
        deadline: float | None = None,
        cancel: threading.Event | None = None,
    ) -> list[IndexHit]:
        """The best ``limit`` documents for ``query``; no hits for a query without words.

        Hybrid (bm25 and vectors fused) when the index has an embedder and vectors of its
        model, unless ``lexical``; by bm25 alone otherwise. ``deadline`` (a
        ``time.monotonic()`` instant) and ``cancel`` stop a search that is still running:
        it raises ProviderError instead of holding its thread.
        """
        expression = fts_query(query)
        if not expression or limit <= 0:
            return []
        meaning = None if lexical or has_cjk(query) else self._query_vector(query)

        def stop() -> int:
            late = deadline is not None and time.monotonic() > deadline
            return int(late or (cancel is not None and cancel.is_set()))

        with self._lock:
            self._db.set_progress_handler(stop, _PROGRESS_STEPS)
            try:
                if has_cjk(query):  # FTS5 cannot split these scripts (index_ranking)
                    ranked = by_characters(self._db, query, limit)
                elif meaning is None or self._vectors is None:
                    ranked = by_words(self._db, expression, limit)
                else:
                    matrix = self._vectors.matrix()
                    ranked = hybrid(self._db, expression, matrix, meaning, limit, self.fusion)
                return hits(self._db, expression, ranked)
            except sqlite3.OperationalError as exc:
                if "interrupted" not in str(exc):
                    raise
                cancelled = cancel is not None and cancel.is_set()
                why = "was cancelled" if cancelled else "ran out of time"
                raise ProviderError(f"local index: the search for {query[:60]!r} {why}") from None
            finally:
                self._db.set_progress_handler(None, 0)

    def _query_vector(self, query: str) -> NDArray[np.float32] | None:
        """The query's vector, or None when no stored vector could be compared with it (the
        model is then never loaded)."""
        if self._vectors is None:
            return None
        ours = self._vectors.embedder.model_sha256
        with self._lock:
            usable = self._db.execute(
                "SELECT 1 FROM index_meta WHERE key = 'model' AND value = ? "
                "AND EXISTS (SELECT 1 FROM passage_vectors)",
                (ours,),
            ).fetchone()
        return self._vectors.embedder.embed([query])[0] if usable else None

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
        """Remove by doc id, by source path, or every source under a folder (with their
        passages and vectors); returns the count."""
        resolved = str(Path(target).expanduser().resolve())
        prefix = resolved.rstrip("/") + "/"
        pattern = re.sub(r"([\\%_])", r"\\\1", prefix) + "%"
        with self._lock, self._transaction():
            cursor = self._db.execute(
                "DELETE FROM docs WHERE doc_id = ? OR source_path IN (?, ?) "
                "OR source_path LIKE ? ESCAPE '\\'",
                (target, target, resolved, pattern),
            )
            touch(self._db)
        return cursor.rowcount

    def stats(self) -> IndexStats:
        with self._lock:
            documents, sources = self._db.execute(
                "SELECT count(*), count(DISTINCT source_path) FROM docs"
            ).fetchone()
            types = self._db.execute(
                "SELECT content_type, count(*) FROM docs GROUP BY content_type ORDER BY 1"
            ).fetchall()
            vectors = status_of(self._db, None)
        size = 0
        if not self._memory:
            size = sum(
                p.stat().st_size for p in (Path(self.path), Path(self.path + "-wal")) if p.exists()
            )
        return IndexStats(
            self.path, documents, sources, size, dict(types), vectors.passages, vectors.vectors
        )

    def _transaction(self) -> Transaction:
        return Transaction(self._db)


def _capped(doc: Document, notes: list[str]) -> Document:
    if len(doc.text) <= MAX_DOCUMENT_CHARS:
        return doc
    where = doc.source_path or doc.doc_id
    notes.append(
        f"{where}: {doc.title!r} has {len(doc.text):,} characters; "
        f"indexed the first {MAX_DOCUMENT_CHARS:,}"
    )
    return replace(doc, text=doc.text[:MAX_DOCUMENT_CHARS])
