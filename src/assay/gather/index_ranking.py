"""How the local index ranks documents for a query: by bm25 alone, or hybrid.

Both rank passages and give each document its best passage's place. By words: FTS5's
bm25 over every matching passage (title weighted four times the body), stopping at the
``limit``-th document. Hybrid: the bm25 ranking and the cosine ranking of the stored
vectors (``gather.vectors``), each down to ``Fusion.candidates`` documents, fused by
reciprocal rank (``gather.fusion``). A hit's snippet is FTS5's around the query's words,
or, for a passage found by meaning alone, its first words.
"""

from __future__ import annotations

import re
import sqlite3
from typing import TYPE_CHECKING

from assay.gather.documents import Document
from assay.gather.fusion import Fusion, fuse
from assay.gather.index_records import IndexHit
from assay.text import raw_words

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

    from assay.gather.vectors import VectorMatrix

MAX_QUERY_TOKENS = 64
_TOKEN = re.compile(r"\w+")
Ranked = list[tuple[int, int, float]]
"""(document rowid, its best passage's rowid, score), best first."""

# Every matching passage's rank (cheap: no snippet), best first.
_MATCH = """
SELECT p.doc, passages_fts.rowid, bm25(passages_fts, 4.0, 1.0) AS rank
FROM passages_fts JOIN passages AS p ON p.id = passages_fts.rowid
WHERE passages_fts MATCH ? ORDER BY rank
"""
_SNIPPET = """
SELECT rowid, snippet(passages_fts, 1, '', '', '…', 32) FROM passages_fts
WHERE passages_fts MATCH ? AND rowid = ?
"""
_OPENING_WORDS = 32  # as many as snippet() shows
_OPENING_CHARS = 240  # a passage in a script without spaces is one "word"


def fts_query(query: str) -> str:
    """A safe FTS5 MATCH expression: each word token quoted, OR-ed; '' when none."""
    seen: dict[str, None] = {}
    for token in _TOKEN.findall(query.casefold()):
        seen.setdefault(token, None)
        if len(seen) >= MAX_QUERY_TOKENS:
            break
    return " OR ".join('"' + t.replace('"', '""') + '"' for t in seen)


def by_characters(db: sqlite3.Connection, query: str, limit: int) -> Ranked:
    """The ``limit`` best documents for a query in a script written without spaces (CJK).

    FTS5's unicode61 tokenizer takes a whole run of such characters, up to the next
    punctuation, for one token, so no query word would match it. Instead each passage
    scores the query's tokens it contains (``text.raw_words``: character pairs, and any
    other words), a title's four times a body's, in one scan of the passages.
    """
    needles = list(dict.fromkeys(t.casefold() for t in raw_words(query)))[:MAX_QUERY_TOKENS]
    if not needles:
        return []
    score = " + ".join(
        ["4 * (instr(lower(title), ?) > 0) + (instr(lower(text), ?) > 0)"] * len(needles)
    )
    rows = db.execute(
        f"SELECT doc, id, score FROM (SELECT doc, id, {score} AS score FROM passages) "  # noqa: S608 - constant SQL, values bound
        "WHERE score > 0 ORDER BY score DESC, id",
        [value for needle in needles for value in (needle, needle)],
    )
    best: dict[int, tuple[int, float]] = {}
    for doc, passage, found in rows:
        best.setdefault(doc, (passage, float(found)))
        if len(best) >= limit:
            break
    return [(doc, passage, found) for doc, (passage, found) in best.items()]


def index_url(doc: Document | str) -> str:
    doc_id = doc if isinstance(doc, str) else doc.doc_id
    return f"index://{doc_id}"


def by_words(db: sqlite3.Connection, expression: str, limit: int) -> Ranked:
    """The ``limit`` best documents by bm25, scored -bm25 (higher is better)."""
    best: dict[int, tuple[int, float]] = {}
    for doc, passage, rank in db.execute(_MATCH, (expression,)):
        best.setdefault(doc, (passage, rank))
        if len(best) >= limit:
            break
    return [(doc, passage, -rank) for doc, (passage, rank) in best.items()]


def hybrid(
    db: sqlite3.Connection,
    expression: str,
    matrix: VectorMatrix,
    meaning: NDArray[np.float32],
    limit: int,
    fusion: Fusion,
) -> Ranked:
    """The ``limit`` best documents by bm25 and cosine fused, scored in (0, 1]."""
    wanted = max(fusion.candidates, limit)
    lexical: list[tuple[int, int]] = []
    docs: set[int] = set()
    for doc, passage, _ in db.execute(_MATCH, (expression,)):
        if doc not in docs and len(docs) >= wanted:
            break
        docs.add(doc)
        lexical.append((passage, doc))
    vector = matrix.nearest(meaning, wanted, fusion.floor)
    return fuse(lexical, vector, fusion)[:limit]


def hits(db: sqlite3.Connection, expression: str, ranked: Ranked) -> list[IndexHit]:
    found: list[IndexHit] = []
    for doc, passage, score in ranked:
        row = db.execute("SELECT doc_id, title, url FROM docs WHERE id = ?", (doc,)).fetchone()
        if row is None:  # another process removed it after the vectors were read
            continue
        doc_id, title, url = row
        snippet = db.execute(_SNIPPET, (expression, passage)).fetchone()
        text = " ".join(snippet[1].split()) if snippet else _opening(db, passage)
        found.append(IndexHit(doc_id, title, url or index_url(doc_id), text, score))
    return found


def _opening(db: sqlite3.Connection, passage: int) -> str:
    """The first words of a passage that shares no word with the query (or, for text
    without spaces, its first characters)."""
    row = db.execute("SELECT text FROM passages WHERE id = ?", (passage,)).fetchone()
    words = row[0].split() if row else []
    more = "…" if len(words) > _OPENING_WORDS else ""
    opening = " ".join(words[:_OPENING_WORDS]) + more
    return opening if len(opening) <= _OPENING_CHARS else opening[:_OPENING_CHARS] + "…"
