"""The local full-text index: readers, ranking, safe queries, removal, stats."""

from __future__ import annotations

import json
import sqlite3
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from assay.errors import BadInputError
from assay.gather.documents import Document, make_doc_id, parse_records, read_file
from assay.gather.index import LocalIndex, fts_query

HOSTILE_QUERIES = [
    '"',
    '""',
    "'",
    "AND OR NOT",
    "AND",
    "NOT bees",
    "*",
    "bee*",
    "NEAR(",
    "NEAR(bees honey, 2)",
    "col:x",
    "title:bees",
    "^bees",
    "(bees",
    "bees)",
    "{title text}: bees",
    "-bees +honey",
    "bees AND",
    "\x00",
    "\ud800 lone surrogate",
    "ünïcödé café naïve",
    "日本語のテキスト",
    "🐝🍯",
    "  \t\n ",
    "x" * 10_000,
    "bees " * 2_000,
]


def tiny_pdf(text: str, title: str) -> bytes:
    """A one-page PDF with ``text`` in Helvetica and ``title`` in its metadata."""
    stream = f"BT /F1 12 Tf 72 720 Td ({text}) Tj ET".encode("latin-1")
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] "
        b"/Resources << /Font << /F1 4 0 R >> >> /Contents 5 0 R >>",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
        b"<< /Length %d >>\nstream\n" % len(stream) + stream + b"\nendstream",
        b"<< /Title (" + title.encode("latin-1") + b") >>",
    ]
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % number + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    for offset in offsets:
        out += b"%010d 00000 n \n" % offset
    out += b"trailer\n<< /Size %d /Root 1 0 R /Info 6 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (
        len(objects) + 1,
        xref,
    )
    return bytes(out)


def write_corpus(root: Path) -> Path:
    """One file of every supported type, a nested folder, a hidden file and a stray type."""
    root.mkdir(parents=True, exist_ok=True)
    (root / "bees.md").write_text(
        "# Honeybees\n\nHoneybees make honey from nectar.\n", encoding="utf-8"
    )
    (root / "notes.txt").write_text("Tides\n\nThe tide turns twice a day.\n", encoding="utf-8")
    (root / "page.html").write_text(
        "<html><head><title>Lighthouses</title></head><body><main><article>"
        "<h1>Lighthouses</h1><p>A lighthouse guides ships along a rocky coast at night. "
        "Its lamp turns slowly and can be seen for many miles across the water.</p>"
        "</article></main></body></html>",
        encoding="utf-8",
    )
    (root / "paper.pdf").write_bytes(tiny_pdf("Quokkas live on Rottnest Island", "Quokka notes"))
    records = [
        {"title": "Volcanoes", "text": "Magma rises through the crust.", "url": "https://v.test/"},
        {"title": "Glaciers", "text": "Ice moves slowly downhill."},
    ]
    (root / "records.json").write_text(json.dumps(records), encoding="utf-8")
    nested = root / "deeper" / "still"
    nested.mkdir(parents=True)
    lines = [{"title": "Sourdough", "text": ["Rye flour.", "A long ferment."]}]
    (nested / "bread.jsonl").write_text("\n".join(map(json.dumps, lines)), encoding="utf-8")
    (root / ".hidden.md").write_text("# Secret\n\nhidden quokka text\n", encoding="utf-8")
    (root / "image.png").write_bytes(b"\x89PNG")
    return root


@pytest.fixture
def index(tmp_path: Path) -> Iterator[LocalIndex]:
    with LocalIndex(tmp_path / "index.sqlite") as opened:
        yield opened


def test_add_paths_reads_every_type_recursively(index: LocalIndex, tmp_path: Path) -> None:
    report = index.add_paths([write_corpus(tmp_path / "docs")])
    assert report.files == 6 and report.documents == 7 and report.skipped == []
    titles = {d.title: d for d in index.documents()}
    assert set(titles) == {
        "Honeybees",
        "Tides",
        "Lighthouses",
        "Quokka notes",
        "Volcanoes",
        "Glaciers",
        "Sourdough",
    }
    assert titles["Quokka notes"].content_type == "application/pdf"
    assert "Rottnest" in titles["Quokka notes"].text
    assert "rocky coast" in titles["Lighthouses"].text
    assert titles["Sourdough"].text == "Rye flour. A long ferment."
    assert titles["Volcanoes"].url == "https://v.test/"
    assert index.search("quokka")[0].title == "Quokka notes"  # the hidden file is not read
    assert len(index.search("quokka")) == 1


def test_hits_rank_by_bm25_and_point_at_urls(index: LocalIndex) -> None:
    index.add_documents(
        [
            Document("a", "Bees", "Bees bees bees make honey.", None, None, "text/plain"),
            Document("b", "Honey", "Honey is sweet; bees make it.", "https://h.test/", None),
            Document("c", "Tides", "The moon pulls the sea.", None, None, "text/plain"),
        ]
    )
    hits = index.search("bees", limit=10)
    assert [h.doc_id for h in hits] == ["a", "b"]
    assert hits[0].score > hits[1].score > 0
    assert hits[0].url == "index://a" and hits[1].url == "https://h.test/"
    assert "honey" in hits[1].snippet.lower()
    assert index.search("bees", limit=1)[0].doc_id == "a"
    assert [h.doc_id for h in index.search("moon honey")] != []  # any word matches


@pytest.mark.parametrize("query", HOSTILE_QUERIES, ids=range(len(HOSTILE_QUERIES)))
def test_no_query_can_break_the_index(index: LocalIndex, query: str) -> None:
    index.add_documents([Document("a", "Bees", "Bees make honey. Café naïve ünïcödé 日本語")])
    hits = index.search(query)
    assert isinstance(hits, list)


def test_query_syntax_is_never_interpreted(index: LocalIndex) -> None:
    index.add_documents([Document("a", "Bees", "and or not near honey")])
    assert index.search("") == [] and index.search('"') == [] and index.search("*") == []
    assert [h.doc_id for h in index.search("NOT")] == ["a"]  # a word, not an operator
    assert [h.doc_id for h in index.search("title:bees")] == ["a"]
    assert [h.doc_id for h in index.search("cafe")] == []
    assert fts_query('a "b" NEAR(c') == '"a" OR "b" OR "near" OR "c"'
    assert fts_query(" ".join(f"w{i}" for i in range(500))).count(" OR ") == 63


def test_diacritics_fold(index: LocalIndex) -> None:
    index.add_documents([Document("a", "Café", "Crème brûlée in Zürich.")])
    assert [h.doc_id for h in index.search("creme brulee zurich")] == ["a"]


def test_doc_ids_are_stable_and_readding_replaces(index: LocalIndex, tmp_path: Path) -> None:
    data = tmp_path / "set.json"
    data.write_text(json.dumps({"One": "first text", "Two": ["a.", "b."]}), encoding="utf-8")
    index.add_paths([data])
    first = sorted(d.doc_id for d in index.documents())
    assert first == sorted(make_doc_id(f"{data.resolve()}#{i}") for i in range(2))
    data.write_text(json.dumps({"One": "changed text"}), encoding="utf-8")
    index.add_paths([data])
    docs = list(index.documents())
    assert [(d.doc_id, d.text) for d in docs] == [
        (make_doc_id(f"{data.resolve()}#0"), "changed text")
    ]


def test_records_with_urls_get_url_ids() -> None:
    assert parse_records([{"title": "T", "text": "x", "url": "https://u.test/"}]) == [
        ("T", "x", "https://u.test/")
    ]
    assert parse_records({"T": ["Short one.", "Short two."]}) == [
        ("T", "Short one. Short two.", None)
    ]
    assert parse_records([{"no": "text"}, {"text": ""}, 5]) == []


def test_unreadable_files_are_skipped_not_fatal(index: LocalIndex, tmp_path: Path) -> None:
    (tmp_path / "bad.json").write_text("{not json", encoding="utf-8")
    (tmp_path / "bad.pdf").write_bytes(b"%PDF-1.4 garbage")
    (tmp_path / "ok.txt").write_text("fine text", encoding="utf-8")
    (tmp_path / "index.sqlite").touch(exist_ok=True)
    report = index.add_paths([tmp_path])
    assert report.documents == 1
    assert sorted(Path(p).name for p, _ in report.skipped) == ["bad.json", "bad.pdf"]
    assert all(reason for _, reason in report.skipped)
    single = index.add_paths([tmp_path / "bad.json"])
    assert single.documents == 0 and len(single.skipped) == 1


def test_missing_path_is_a_user_error_and_stores_nothing(index: LocalIndex, tmp_path: Path) -> None:
    (tmp_path / "ok.txt").write_text("fine", encoding="utf-8")
    with pytest.raises(BadInputError, match="no such file"):
        index.add_paths([tmp_path / "ok.txt", tmp_path / "missing"])
    assert index.stats().documents == 0
    with pytest.raises(BadInputError, match="unsupported"):
        read_file(tmp_path / "x.png")


def test_remove_by_id_file_and_folder(index: LocalIndex, tmp_path: Path) -> None:
    for folder in ("docs", "docs2"):
        (tmp_path / folder / "sub").mkdir(parents=True)
        (tmp_path / folder / "a.txt").write_text("alpha", encoding="utf-8")
        (tmp_path / folder / "sub" / "b.txt").write_text("beta", encoding="utf-8")
    index.add_paths([tmp_path / "docs", tmp_path / "docs2"])
    index.add_documents([Document("manual", "M", "gamma")])
    assert index.stats().documents == 5
    assert index.remove("manual") == 1
    assert index.remove(str(tmp_path / "docs" / "a.txt")) == 1
    assert index.remove(str(tmp_path / "docs")) == 1  # not docs2, despite the shared prefix
    assert index.stats().documents == 2
    assert index.remove("nothing-like-this") == 0
    assert index.get("manual") is None


def test_get_stats_and_persistence(tmp_path: Path) -> None:
    path = tmp_path / "home" / "index.sqlite"
    with LocalIndex(path) as index:
        assert (
            index.add_documents(
                [Document("a", "A", "text one", source_path="/x/a.txt"), Document("b", "B", "two")]
            )
            == 2
        )
        stats = index.stats()
    assert stats.documents == 2 and stats.sources == 1 and stats.size_bytes > 0
    assert stats.content_types == {"text/plain": 2}
    with LocalIndex(path) as reopened:
        assert reopened.get("a") == Document("a", "A", "text one", None, "/x/a.txt", "text/plain")
        assert reopened.get("zzz") is None
    with sqlite3.connect(path) as raw:
        assert raw.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    raw.close()


def test_not_an_index_is_a_user_error(tmp_path: Path) -> None:
    bogus = tmp_path / "index.sqlite"
    bogus.write_bytes(b"this is not a database at all" * 100)
    with pytest.raises(BadInputError, match="not a usable index"):
        LocalIndex(bogus)


def test_in_memory_index_is_thread_safe() -> None:
    with LocalIndex(":memory:") as index:
        index.add_documents(Document(str(i), f"Doc {i}", f"word{i % 7} shared") for i in range(200))
        errors: list[BaseException] = []

        def worker() -> None:
            try:
                for _ in range(50):
                    assert len(index.search("shared word3", limit=5)) == 5
            except BaseException as exc:
                errors.append(exc)

        threads = [threading.Thread(target=worker) for _ in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert errors == []
        assert index.stats().size_bytes == 0
