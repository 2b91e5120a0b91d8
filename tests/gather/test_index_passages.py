"""A large document is searched as bounded passages: fast, cancellable, read back whole."""

from __future__ import annotations

import random
import sqlite3
import threading
import time
from pathlib import Path

import pytest

from assay.errors import ProviderError
from assay.gather.documents import Document, read_file
from assay.gather.index import LocalIndex
from assay.gather.passages import PASSAGE_CHARS, split_passages

WORDS = ["alpha", "river", "stone", "lamp", "north", "grain", "tower", "field", "cloud", "marsh"]


def _large_text(megabytes: float) -> str:
    rng = random.Random(3)
    lines = [" ".join(rng.choices(WORDS, k=10)) + "\n" for _ in range(int(megabytes * 16_950))]
    lines[len(lines) // 2] = "where the chadstone river meets the sea\n"
    return "".join(lines)


@pytest.fixture(scope="module")
def large_index(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("large")
    text = _large_text(1.0)
    (folder / "large.txt").write_text(text, encoding="utf-8")
    with LocalIndex(folder / "index.sqlite") as index:
        index.add_paths([folder / "large.txt"])
    return folder / "index.sqlite"


def test_a_one_megabyte_document_is_searched_in_a_blink(large_index: Path) -> None:
    path = large_index
    with LocalIndex(path) as index:
        start = time.perf_counter()
        hits = index.search("chadstone river")
        elapsed = time.perf_counter() - start
        assert elapsed < 0.3  # whole-row snippet(): ~2 s on this machine
        assert "chadstone" in hits[0].snippet
        assert len(hits[0].snippet) < 400
        assert index.get(hits[0].doc_id) == read_file(path.parent / "large.txt")[0]


def test_a_search_stops_at_its_deadline_or_when_cancelled(large_index: Path) -> None:
    path = large_index
    cancel = threading.Event()
    cancel.set()
    with LocalIndex(path) as index:
        with pytest.raises(ProviderError, match="cancelled"):
            index.search("river alpha stone", cancel=cancel)
        with pytest.raises(ProviderError, match="out of time"):
            index.search("river alpha stone", deadline=time.monotonic() - 1)
        assert index.search("river") != []  # the connection still works afterwards


@pytest.mark.parametrize("text", ["", "short", "a\n" * 5000, "x" * 9999, "word " * 3000])
def test_passages_are_bounded_and_join_back_exactly(text: str) -> None:
    pieces = list(split_passages(text))
    assert "".join(pieces) == text
    assert all(len(p) <= PASSAGE_CHARS for p in pieces)


def test_an_index_from_before_passages_is_migrated(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite"
    with sqlite3.connect(path) as db:
        db.executescript(
            "CREATE TABLE docs (id INTEGER PRIMARY KEY, doc_id TEXT NOT NULL UNIQUE,"
            " title TEXT NOT NULL, text TEXT NOT NULL, url TEXT, source_path TEXT,"
            " content_type TEXT NOT NULL);"
            "CREATE VIRTUAL TABLE docs_fts USING fts5(title, text, content='docs',"
            " content_rowid='id');"
            "INSERT INTO docs VALUES (1, 'd1', 'Bees', 'Bees make honey.', NULL, NULL,"
            " 'text/plain');"
        )
    with LocalIndex(path) as index:
        assert [hit.doc_id for hit in index.search("honey")] == ["d1"]
        index.add_documents([Document("d1", "Bees", "Bees dance.", None, None, "text/plain")])
        assert index.search("honey") == []
        assert [hit.doc_id for hit in index.search("dance")] == ["d1"]
