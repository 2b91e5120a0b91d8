"""Documents, and the readers that turn the user's files into them.

A file becomes one document (.md, .txt, .html/.htm, .pdf) or one per record (.json,
.jsonl). JSON takes two generic shapes: a list of records (or one record per line for
JSONL) with ``title``, ``text`` and an optional ``url``; or an object mapping each title
to its text, given as a string or as a list of sentences or paragraphs.

Doc ids are stable: a short sha256 of the record's URL when it has one, else of the
resolved source path and the record's index in the file.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from assay.controls import strip_controls
from assay.errors import BadInputError, FetchError
from assay.gather.records import json_records
from assay.gather.records import parse_records as parse_records  # re-exported

CONTENT_TYPES: dict[str, str] = {
    ".md": "text/markdown",
    ".markdown": "text/markdown",
    ".txt": "text/plain",
    ".html": "text/html",
    ".htm": "text/html",
    ".pdf": "application/pdf",
    ".json": "application/json",
    ".jsonl": "application/jsonl",
}
_MAX_LINE_TITLE = 120


@dataclass(frozen=True)
class Document:
    """One indexed text: a file, or one record of a JSON/JSONL file."""

    doc_id: str
    title: str
    text: str
    url: str | None = None
    source_path: str | None = None
    content_type: str = "text/plain"

    def __post_init__(self) -> None:
        # A file's control characters never reach the index (nor, later, a terminal).
        object.__setattr__(self, "title", strip_controls(self.title))
        object.__setattr__(self, "text", strip_controls(self.text))

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def make_doc_id(key: str) -> str:
    """A short, stable id derived from a URL or a ``path#index`` key."""
    return hashlib.sha256(key.encode("utf-8", "surrogatepass")).hexdigest()[:16]


def iter_files(paths: Sequence[Path]) -> Iterator[Path]:
    """Each given file, and every supported file under each given folder (hidden ones skipped).

    A path that does not exist is a BadInputError, raised before anything is yielded.
    """
    for path in paths:
        if not path.exists():
            raise BadInputError(f"no such file or folder: {path}")
    for path in paths:
        if path.is_dir():
            for child in sorted(path.rglob("*")):
                relative = child.relative_to(path).parts
                hidden = any(part.startswith(".") for part in relative)
                if child.is_file() and not hidden and child.suffix.lower() in CONTENT_TYPES:
                    yield child
        else:
            yield path


def read_file(path: Path, *, problems: list[str] | None = None) -> list[Document]:
    """The documents in one file; a file that cannot be read is a BadInputError.

    A JSON part that is not a record (``gather.records``: a JSONL line that is not UTF-8 JSON
    or not an object with a text, say) is skipped and named, ``FILE:LINE: why``, in
    ``problems``; the file's other records are kept (without a list, such a part raises).
    """
    suffix = path.suffix.lower()
    content_type = CONTENT_TYPES.get(suffix)
    if content_type is None:
        raise BadInputError(f"{path}: unsupported file type {suffix or '(none)'!r}")
    source = str(path.resolve())
    try:
        if suffix == ".pdf":
            title, text = _read_pdf(path)
            return [Document(make_doc_id(f"{source}#0"), title, text, None, source, content_type)]
        data = path.read_bytes()
    except OSError as exc:
        raise BadInputError(f"{path}: cannot read: {exc.strerror or exc}") from None
    if suffix in {".json", ".jsonl"}:
        records, skipped = json_records(data, path, lines=suffix == ".jsonl")
        if skipped and problems is None:
            raise BadInputError(skipped[0])
        if problems is not None:
            problems.extend(f"{problem}; skipped" for problem in skipped)
        return records_to_documents(records, source=source, content_type=content_type)
    raw = data.decode("utf-8", errors="replace")  # a stray byte in prose costs one character
    if content_type == "text/html":
        title, text = html_to_text(raw, None)
    else:
        title, text = _plain_title(raw, path, markdown=content_type == "text/markdown"), raw
    title = title or path.stem
    return [Document(make_doc_id(f"{source}#0"), title, text.strip(), None, source, content_type)]


def records_to_documents(
    records: Sequence[tuple[str, str, str | None]], *, source: str | None, content_type: str
) -> list[Document]:
    """(title, text, url) records → documents with stable ids."""
    docs = []
    for index, (title, text, url) in enumerate(records):
        key = url if url else f"{source}#{index}"
        docs.append(Document(make_doc_id(key), title, text, url, source, content_type))
    return docs


def html_to_text(html: str, url: str | None) -> tuple[str, str]:
    """(title, main text) of an HTML page, by ``assay.gather.extract``."""
    from assay.gather.extract import extract_html  # imported late: it loads trafilatura

    found = extract_html(html, url)
    return found.title or "", found.text


def _plain_title(raw: str, path: Path, *, markdown: bool) -> str:
    for line in raw.splitlines():
        stripped = line.strip()
        if not stripped:
            continue
        if markdown and stripped.startswith("#"):
            return stripped.lstrip("#").strip()
        if not markdown and len(stripped) <= _MAX_LINE_TITLE:
            return stripped
        break
    return path.stem


def _read_pdf(path: Path) -> tuple[str, str]:
    from assay.gather.extract import extract_pdf

    try:
        found = extract_pdf(path.read_bytes(), url=None)
    except FetchError as exc:
        raise BadInputError(f"{path}: {exc.reason}") from None
    text = "\n\n".join(p.strip() for p in found.text.split("\f") if p.strip())
    return found.title or path.stem, text
