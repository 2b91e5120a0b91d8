"""Passage vectors in the local index and the hybrid search they give (gather.vectors,
gather.fusion, gather.index_ranking)."""

from __future__ import annotations

import sqlite3
import zlib
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest
from numpy.typing import NDArray

from assay.gather import vectors
from assay.gather.documents import Document
from assay.gather.fusion import Fusion, fuse
from assay.gather.index import LocalIndex, fts_query
from assay.reading.embed import default_embedder

DOCS = [
    Document("bees", "Bees", "Bees make honey from nectar and dance to show the way."),
    Document("tides", "Tides", "The moon moves the tides of the sea twice a day."),
    Document("cats", "Cats", "Cats are small domesticated carnivores that hunt mice at night."),
]
# Shares no word with any of DOCS (fts_query's tokens), but means the cats document.
FELINES = "how do felines behave"


class WordEmbedder:
    """A fast stand-in for the model: each word adds to one of 384 dimensions (cosine is
    word overlap, after ``synonyms``); ``model_sha256`` names the "model"; ``texts`` records
    what it embedded."""

    def __init__(self, sha: str = "a" * 64, synonyms: dict[str, str] | None = None) -> None:
        self.model_sha256 = sha
        self.synonyms = synonyms or {}
        self.texts: list[str] = []

    def embed(self, texts: Sequence[str]) -> NDArray[np.float32]:
        self.texts.extend(texts)
        out = np.full((len(texts), 384), 1e-3, dtype=np.float32)
        for row, text in enumerate(texts):
            for word in fts_query(text).replace('"', "").split(" OR "):
                word = self.synonyms.get(word, word)
                out[row, zlib.crc32(word.encode()) % 384] += 1.0
        out /= np.linalg.norm(out, axis=1, keepdims=True)
        return out


def _rows(path: Path, sql: str) -> list[tuple[object, ...]]:
    with sqlite3.connect(path) as db:
        return db.execute(sql).fetchall()


def test_vectors_come_and_go_with_their_documents(tmp_path: Path) -> None:
    path = tmp_path / "index.sqlite"
    with LocalIndex(path, embedder=WordEmbedder()) as index:
        index.add_documents(DOCS)
        assert index.stats().vectors == index.stats().passages == 3
        index.add_documents([Document("bees", "Bees", "Wasps. " * 1500)])  # replaced: 3 passages
        assert index.stats().passages == index.stats().vectors == 5
        assert index.remove("tides") == 1
        assert index.stats().passages == index.stats().vectors == 4
        status = index.vector_status()
        assert status.usable and status.note is None
    orphans = "SELECT count(*) FROM passage_vectors WHERE passage NOT IN (SELECT id FROM passages)"
    assert _rows(path, orphans) == [(0,)]
    blob = _rows(path, "SELECT vector FROM passage_vectors LIMIT 1")[0][0]
    assert isinstance(blob, bytes) and len(blob) == 384 * 4  # float32
    assert _rows(path, "SELECT value FROM index_meta WHERE key = 'model'") == [("a" * 64,)]


def test_meaning_finds_what_words_cannot() -> None:
    with LocalIndex(":memory:", embedder=default_embedder()) as index:
        index.add_documents(DOCS)
        assert index.search(FELINES, lexical=True) == []
        hits = index.search(FELINES)
        assert hits[0].doc_id == "cats" and hits[0].snippet.startswith("Cats are small")
        assert 0 < hits[0].score <= 1.0  # fused scores are scaled to (0, 1]
        assert index.search("honey")[0].doc_id == "bees"  # words still count


def test_without_an_embedder_the_search_is_bm25() -> None:
    with LocalIndex(":memory:") as index:
        index.add_documents(DOCS)
        assert index.search(FELINES) == [] and index.stats().vectors == 0
        assert index.vector_status().note is None


def test_vectors_of_another_model_are_ignored_then_made_again(tmp_path: Path) -> None:
    path = tmp_path / "index.sqlite"
    with LocalIndex(path, embedder=WordEmbedder("a" * 64)) as index:
        index.add_documents(DOCS)
    other = WordEmbedder("b" * 64)
    with LocalIndex(path, embedder=other) as index:
        status = index.vector_status()
        assert not status.usable and status.note and "another model" in status.note
        assert [h.doc_id for h in index.search("moon")] == ["tides"]  # by words
        assert other.texts == []  # not even the query was embedded
        made, notes = index.fill_vectors()
        assert made == 3 and notes and "made again" in notes[0]
        assert index.vector_status().usable
        assert other.texts[-1].startswith("Cats")  # every passage was embedded again
    assert _rows(path, "SELECT value FROM index_meta WHERE key = 'model'") == [("b" * 64,)]


OLD_SCHEMA = """
CREATE TABLE docs (id INTEGER PRIMARY KEY, doc_id TEXT NOT NULL UNIQUE, title TEXT NOT NULL,
    text TEXT NOT NULL, url TEXT, source_path TEXT, content_type TEXT NOT NULL);
CREATE TABLE passages (id INTEGER PRIMARY KEY, doc INTEGER NOT NULL, title TEXT NOT NULL,
    text TEXT NOT NULL);
CREATE VIRTUAL TABLE passages_fts USING fts5(title, text, content='passages',
    content_rowid='id', tokenize='unicode61 remove_diacritics 2');
CREATE TRIGGER passages_ai AFTER INSERT ON passages BEGIN
    INSERT INTO passages_fts(rowid, title, text) VALUES (new.id, new.title, new.text);
END;
INSERT INTO docs VALUES
    (1, 'tides', 'Tides', 'The moon moves the tides.', NULL, NULL, 'text/plain');
INSERT INTO passages VALUES (1, 1, 'Tides', 'The moon moves the tides.');
"""


def test_an_index_from_before_vectors_is_searched_then_given_vectors(tmp_path: Path) -> None:
    path = tmp_path / "index.sqlite"
    with sqlite3.connect(path) as db:
        db.executescript(OLD_SCHEMA)
    embedder = WordEmbedder()
    with LocalIndex(path, embedder=embedder) as index:
        assert [h.doc_id for h in index.search("moon")] == ["tides"]
        note = index.vector_status().note
        assert note and "1 of 1 passages have no vector" in note and "assay index embed" in note
        assert index.fill_vectors() == (1, [])
        assert index.vector_status().usable
        assert [h.doc_id for h in index.search("moon")] == ["tides"]


class BrokenEmbedder(WordEmbedder):
    def embed(self, texts: Sequence[str]) -> NDArray[np.float32]:
        raise RuntimeError("the model fell over")


def test_passages_stored_before_a_failed_embedding_stay_searchable(tmp_path: Path) -> None:
    path = tmp_path / "index.sqlite"
    with LocalIndex(path, embedder=BrokenEmbedder()) as index, pytest.raises(RuntimeError):
        index.add_documents(DOCS)
    with LocalIndex(path, embedder=WordEmbedder()) as index:
        assert index.stats().documents == 3 and index.stats().vectors == 0
        assert [h.doc_id for h in index.search("moon")] == ["tides"]
        assert index.fill_vectors()[0] == 3


def test_the_matrix_is_read_once_per_process_until_the_index_changes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    reads: list[int] = []
    read = vectors._read_matrix
    monkeypatch.setattr(vectors, "_read_matrix", lambda db: reads.append(1) or read(db))
    path = tmp_path / "index.sqlite"
    synonyms = {"felines": "cats"}  # found by "meaning" only: the words differ
    with LocalIndex(path, embedder=WordEmbedder(synonyms=synonyms)) as index:
        index.add_documents(DOCS[:2])
        assert index.search("felines") == []
    with LocalIndex(path, embedder=WordEmbedder(synonyms=synonyms)) as reader:
        assert reader.search("felines") == [] and len(reads) == 1  # the cached matrix
        with LocalIndex(path, embedder=WordEmbedder()) as writer:  # another connection
            writer.add_documents(DOCS[2:])
        assert [h.doc_id for h in reader.search("felines")] == ["cats"]
        assert len(reads) == 2


def test_fusion_ranks_passages_and_keeps_each_document_s_best() -> None:
    fusion = Fusion(k=60)
    # passage 1 (doc 10) first by words and by meaning; passage 2 (doc 10) second by words;
    # passage 3 (doc 20) only by meaning.
    fused = fuse([(1, 10), (2, 10)], [(1, 10), (3, 20)], fusion)
    assert fused == [(10, 1, 1.0), (20, 3, pytest.approx((1 / 62) / fusion.best))]
    weighted = fuse([(1, 10)], [(3, 20)], Fusion(vector_weight=2.0))
    assert [doc for doc, _, _ in weighted] == [20, 10]
