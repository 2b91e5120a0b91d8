"""What the lab serves: documents from a folder, a JSON/JSONL file, an index, or a list.

Documents are dealt to sites in the order of a hash of their doc id, so the same corpus
always lands on the same sites in balanced shares; each gets a slug unique within its site.
"""

from __future__ import annotations

import hashlib
import logging
import sqlite3
from collections.abc import Sequence
from contextlib import closing
from dataclasses import replace
from pathlib import Path

from assay.errors import BadInputError
from assay.gather.documents import Document, iter_files, make_doc_id, read_file
from assay.gather.index import LocalIndex
from assay.lab.pages import LabPage
from assay.store.paths import slugify

_log = logging.getLogger(__name__)
_SQLITE_SUFFIXES = {".sqlite", ".sqlite3", ".db"}


def load_corpus(corpus: Path | Sequence[Document]) -> list[Document]:
    """The documents of ``corpus``; a corpus with none is a BadInputError."""
    docs = _read_path(corpus) if isinstance(corpus, Path) else list(corpus)
    if not docs:
        where = f": {corpus}" if isinstance(corpus, Path) else ""
        raise BadInputError(f"the corpus has no documents{where}")
    unique = {d.doc_id: d for d in docs}
    return list(unique.values())


def assign_sites(docs: Sequence[Document], sites: int) -> dict[str, int]:
    """Each doc id's 0-based site: docs ordered by a hash of their id, dealt round-robin.

    Deterministic for a given corpus, and balanced: every site gets ``len(docs) // sites``
    or one more document.
    """
    ordered = sorted(
        docs, key=lambda d: hashlib.sha256(d.doc_id.encode("utf-8", "replace")).digest()
    )
    return {doc.doc_id: number % sites for number, doc in enumerate(ordered)}


def plan_pages(docs: Sequence[Document], bases: Sequence[str]) -> list[list[LabPage]]:
    """Each site's pages, in corpus order, with slugs unique within the site."""
    per_site: list[list[LabPage]] = [[] for _ in bases]
    taken: list[set[str]] = [set() for _ in bases]
    where = assign_sites(docs, len(bases))
    for doc in docs:
        site = where[doc.doc_id]
        slug = slugify(doc.title, fallback="page")
        if slug in taken[site]:
            slug = f"{slug[:50]}-{doc.doc_id[:8]}"
        taken[site].add(slug)
        per_site[site].append(LabPage(doc, site, slug, f"{bases[site]}/pages/{slug}"))
    return per_site


def _read_path(path: Path) -> list[Document]:
    if not path.exists():
        raise BadInputError(f"no such corpus: {path}")
    if path.is_file() and path.suffix.lower() in _SQLITE_SUFFIXES:
        if not _is_index(path):
            raise BadInputError(f"{path}: not an assay index")
        with LocalIndex(path) as index:
            return list(index.documents())
    docs: list[Document] = []
    problems: list[str] = []
    for file in iter_files([path]):
        try:
            read = read_file(file, problems=problems)
        except BadInputError:
            if path.is_file():
                raise
            continue
        docs.extend(_named_within(read, file, path) if path.is_dir() else read)
    for problem in problems:
        _log.warning("%s", problem)
    return docs


def _named_within(docs: list[Document], file: Path, folder: Path) -> list[Document]:
    """``docs`` read from ``file`` with ids made from its path inside ``folder``: an id
    made from the absolute path put the same folder's pages on other sites wherever it
    was copied (a test's corpus is written to a new temporary folder every run)."""
    name = file.resolve().relative_to(folder.resolve()).as_posix()
    return [
        doc if doc.url else replace(doc, doc_id=make_doc_id(f"{name}#{number}"))
        for number, doc in enumerate(docs)
    ]


def _is_index(path: Path) -> bool:
    """Whether ``path`` holds an index, looked at read-only (nothing is created)."""
    try:
        with closing(sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)) as db:
            row = db.execute("SELECT 1 FROM sqlite_master WHERE name = 'docs'").fetchone()
    except sqlite3.DatabaseError:
        return False
    return row is not None
