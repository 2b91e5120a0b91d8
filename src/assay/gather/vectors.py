"""Passage vectors in the local index: one unit vector per passage, by the sentence embedder.

``passage_vectors`` maps a passage's rowid to its 384 float32 values (a BLOB);
``index_meta`` records the sha256 of the model file that made them (``model``) and a token
that changes with every write to the index (``generation``). Vectors of two models are never
mixed: ``fill`` drops every vector when the recorded model is not its embedder's and makes
them again, and search ignores vectors of another model (``VectorStatus.note`` says so).

Vectors are made after their passages are stored, in transactions of ``FILL_BATCH``
passages, with the model running outside the index's lock and outside any transaction. A
crash between the two leaves passages without vectors, and such a passage is simply searched
by its words (BM25) until ``fill`` runs again. A vector is stored only if its passage still
holds the text it was made from, so a passage replaced meanwhile never gets a stale vector;
deleting a passage deletes its vector (a trigger).

Search reads the whole matrix once per process and keeps it (``MATRIX_CACHE`` indexes) until
the index's generation changes; the cosine of the query with every passage is one matrix
product. numpy is imported only when vectors are read or written.
"""

from __future__ import annotations

import sqlite3
import threading
import uuid
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from assay.gather.transaction import Transaction

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

VECTOR_SCHEMA = """
CREATE TABLE IF NOT EXISTS passage_vectors (
    passage INTEGER PRIMARY KEY,
    vector BLOB NOT NULL
);
CREATE TABLE IF NOT EXISTS index_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TRIGGER IF NOT EXISTS passages_vectors_ad AFTER DELETE ON passages BEGIN
    DELETE FROM passage_vectors WHERE passage = old.id;
END;
"""
FILL_BATCH = 256
"""Passages embedded per transaction: what a crash can cost, and the memory one batch holds."""
MATRIX_CACHE = 4
_STORE = """
INSERT OR REPLACE INTO passage_vectors (passage, vector)
SELECT ?, ? WHERE EXISTS (SELECT 1 FROM passages WHERE id = ? AND title = ? AND text = ?)
"""
_MISSING = """
SELECT p.id, p.title, p.text FROM passages AS p
WHERE p.id > ? AND NOT EXISTS (SELECT 1 FROM passage_vectors AS v WHERE v.passage = p.id)
ORDER BY p.id LIMIT ?
"""
_MATRIX = """
SELECT v.passage, p.doc, v.vector FROM passage_vectors AS v JOIN passages AS p ON p.id = v.passage
ORDER BY v.passage
"""


class PassageEmbedder(Protocol):
    """What the index needs of an embedder (``assay.reading.embed.Embedder`` is one)."""

    @property
    def model_sha256(self) -> str: ...

    def embed(self, texts: Sequence[str]) -> NDArray[np.float32]: ...


@dataclass(frozen=True)
class VectorStatus:
    """How many passages the index has, how many have a vector, and by which model."""

    passages: int
    vectors: int
    model: str | None
    """The sha256 of the model that made the stored vectors (None before any)."""
    ours: str | None
    """The sha256 of this index's embedder (None: the index was opened without one)."""

    @property
    def usable(self) -> bool:
        return self.vectors > 0 and self.ours is not None and self.model == self.ours

    @property
    def note(self) -> str | None:
        """Why some or all passages are searched by their words only; None when none are."""
        fix = "`assay index embed` makes them"
        if self.ours is None or not self.passages:
            return None
        if self.vectors and self.model != self.ours:
            return (
                f"the index's passage vectors were made by another model (sha256 "
                f"{(self.model or '?')[:12]}…, this one is {self.ours[:12]}…), so they are "
                f"ignored and the search goes by words only; {fix} again"
            )
        if self.vectors < self.passages:
            return (
                f"{self.passages - self.vectors:,} of {self.passages:,} passages have no "
                f"vector yet and are searched by their words only; {fix}"
            )
        return None


@dataclass(frozen=True)
class VectorMatrix:
    """Every stored vector as one read-only (n, dims) array, with each row's passage and doc."""

    passages: NDArray[np.int64]
    docs: NDArray[np.int64]
    vectors: NDArray[np.float32]

    def nearest(self, query: NDArray[np.float32], docs: int, floor: float) -> list[tuple[int, int]]:
        """(passage, doc) by falling cosine with ``query``, at least ``floor``, until ``docs``
        distinct documents are in (a document's other passages that rank above that count)."""
        import numpy as np

        if not len(self.passages):
            return []
        cosines = self.vectors @ query
        keep = np.flatnonzero(cosines >= floor)
        order = keep[np.argsort(-cosines[keep], kind="stable")]
        ranked: list[tuple[int, int]] = []
        seen: set[int] = set()
        for row in order.tolist():
            doc = int(self.docs[row])
            if doc not in seen and len(seen) >= docs:
                break
            seen.add(doc)
            ranked.append((int(self.passages[row]), doc))
        return ranked


class PassageVectors:
    """The vectors of one index's connection; ``lock`` is the index's (one connection)."""

    def __init__(
        self, db: sqlite3.Connection, lock: threading.Lock, key: str, embedder: PassageEmbedder
    ) -> None:
        self._db = db
        self._lock = lock
        self._key = key
        self.embedder = embedder

    def fill(self, progress: Callable[[int, int], None] | None = None) -> tuple[int, list[str]]:
        """Give every passage without a vector one: how many were made, and notes (a model
        change); ``progress`` hears (done, total) after each batch."""
        ours = self.embedder.model_sha256
        notes: list[str] = []
        with self._lock, Transaction(self._db):
            recorded = meta(self._db, "model")
            if recorded is not None and recorded != ours:
                dropped = self._db.execute("DELETE FROM passage_vectors").rowcount
                notes.append(
                    f"the index's {dropped:,} passage vectors were made by another model "
                    f"(sha256 {recorded[:12]}…); made again with {ours[:12]}…"
                )
            set_meta(self._db, "model", ours)
            touch(self._db)
            total = self._db.execute(
                "SELECT count(*) FROM passages AS p WHERE NOT EXISTS "
                "(SELECT 1 FROM passage_vectors AS v WHERE v.passage = p.id)"
            ).fetchone()[0]
        done, after = 0, 0
        while True:
            with self._lock:
                rows = self._db.execute(_MISSING, (after, FILL_BATCH)).fetchall()
            if not rows:
                return done, notes
            vectors = self.embedder.embed([passage_text(title, text) for _, title, text in rows])
            with self._lock, Transaction(self._db):
                if meta(self._db, "model") != ours:  # another process changed models: stop
                    return done, notes
                self._db.executemany(
                    _STORE,
                    [
                        (rowid, vector.astype("<f4").tobytes(), rowid, title, text)
                        for (rowid, title, text), vector in zip(rows, vectors, strict=True)
                    ],
                )
                touch(self._db)
            after = rows[-1][0]
            done += len(rows)
            if progress is not None:
                progress(done, max(total, done))

    def status(self) -> VectorStatus:
        with self._lock:
            return status_of(self._db, self.embedder.model_sha256)

    def matrix(self) -> VectorMatrix:
        """The stored vectors (call with the lock held), from the cache when unchanged."""
        return _matrices.get(self._db, self._key)

    def forget(self) -> None:
        _matrices.drop(self._key)


def status_of(db: sqlite3.Connection, ours: str | None) -> VectorStatus:
    passages = db.execute("SELECT count(*) FROM passages").fetchone()[0]
    vectors = db.execute("SELECT count(*) FROM passage_vectors").fetchone()[0]
    return VectorStatus(passages, vectors, meta(db, "model"), ours)


def passage_text(title: str, text: str) -> str:
    """What is embedded for a passage: its text, after the document's title unless the text
    already opens with it (the first passage of most files does), since a later passage
    alone may not say what it is about."""
    if not title or text.lstrip("# \n").startswith(title):
        return text
    return f"{title}\n{text}"


def meta(db: sqlite3.Connection, key: str) -> str | None:
    row = db.execute("SELECT value FROM index_meta WHERE key = ?", (key,)).fetchone()
    return str(row[0]) if row else None


def set_meta(db: sqlite3.Connection, key: str, value: str) -> None:
    db.execute("INSERT OR REPLACE INTO index_meta (key, value) VALUES (?, ?)", (key, value))


def touch(db: sqlite3.Connection) -> None:
    """Record that the index changed (in the writing transaction): cached matrices go stale."""
    set_meta(db, "generation", uuid.uuid4().hex)


class _MatrixCache:
    """The last ``MATRIX_CACHE`` indexes' matrices, each with the generation it was read at."""

    def __init__(self) -> None:
        self._entries: OrderedDict[str, tuple[str | None, VectorMatrix]] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, db: sqlite3.Connection, key: str) -> VectorMatrix:
        generation = meta(db, "generation")
        with self._lock:
            entry = self._entries.get(key)
            if entry is not None and entry[0] == generation:
                self._entries.move_to_end(key)
                return entry[1]
        matrix = _read_matrix(db)
        with self._lock:
            self._entries[key] = (generation, matrix)
            self._entries.move_to_end(key)
            while len(self._entries) > MATRIX_CACHE:
                self._entries.popitem(last=False)
        return matrix

    def drop(self, key: str) -> None:
        with self._lock:
            self._entries.pop(key, None)


def _read_matrix(db: sqlite3.Connection) -> VectorMatrix:
    import numpy as np

    rows = db.execute(_MATRIX).fetchall()
    passages = np.array([r[0] for r in rows], dtype=np.int64)
    docs = np.array([r[1] for r in rows], dtype=np.int64)
    blob = b"".join(r[2] for r in rows)
    vectors = np.frombuffer(blob, dtype="<f4").astype(np.float32).reshape(len(rows), -1)
    vectors.setflags(write=False)
    return VectorMatrix(passages, docs, vectors)


_matrices = _MatrixCache()
