"""The records of a .json or .jsonl file for the index: ``(title, text, url)``, or why not.

Two shapes are read. A record is an object with a ``text`` (a string, or a list of strings:
sentences are joined with spaces, paragraphs with blank lines) and an optional ``title`` and
``url``; a .jsonl file holds one per line, a .json file one or a list of them. Or a .json
file maps each title to its text. Anything else — a line that is not UTF-8 JSON, a list or a
number where a record belongs, a ``text`` that is not text — is named (``FILE:LINE: why`` for
a line, ``FILE: item N: why`` for a list item) and skipped; the other records are kept.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from assay.errors import BadInputError
from assay.input_lines import BOM, BadLine, json_lines, not_utf8

Record = tuple[str, str, str | None]
_TITLE_CHARS = 80


def json_records(data: bytes, path: Path, *, lines: bool) -> tuple[list[Record], list[str]]:
    """The file's records, and each part that is not one, named. A .json file that is not
    UTF-8 JSON at all is a BadInputError (there is nothing to keep)."""
    if lines:
        return _line_records(data, path)
    broken = not_utf8(data)
    if broken:
        raise BadInputError(f"{path}: {broken}")
    try:
        value = json.loads(data.removeprefix(BOM))
    except (json.JSONDecodeError, RecursionError) as exc:
        raise BadInputError(f"{path}: not valid JSON: {exc}") from None
    records: list[Record] = []
    problems: list[str] = []
    for where, found in _parts(value):
        if isinstance(found, str):
            problems.append(f"{path}: {where}{found}")
        else:
            records.append(found)
    return records, problems


def parse_records(data: Any) -> list[Record]:
    """The records of a parsed .json value (the parts of another shape left out)."""
    return [found for _, found in _parts(data) if not isinstance(found, str)]


def _line_records(data: bytes, path: Path) -> tuple[list[Record], list[str]]:
    records: list[Record] = []
    problems: list[str] = []
    for line in json_lines(data):
        if isinstance(line, BadLine):
            problems.append(line.describe(path))
            continue
        number, value = line
        found = record(value)
        if isinstance(found, str):
            problems.append(f"{path}:{number}: {found}")
        else:
            records.append(found)
    return records, problems


def _parts(value: Any) -> list[tuple[str, Record | str]]:
    """(where, the record or what is wrong) for each part of a .json file's value."""
    if isinstance(value, list):
        return [(f"item {n}: ", record(item)) for n, item in enumerate(value, start=1)]
    if isinstance(value, dict) and "text" not in value:  # a mapping of titles to texts
        return [(f"{title!r}: ", _titled(str(title), text)) for title, text in value.items()]
    return [("", record(value))]


def record(value: Any) -> Record | str:
    """``value`` as a record, or what is wrong with it (one phrase)."""
    if not isinstance(value, dict):
        return f'expected an object with a "text", got {_kind(value)}'
    if "text" not in value:
        return 'no "text" in the object'
    text, wrong = _text(value["text"])
    if wrong:
        return f'"text" {wrong}'
    url = value.get("url")
    title = str(value.get("title") or text[:_TITLE_CHARS])
    return (title, text, url if isinstance(url, str) and url else None)


def _titled(title: str, value: Any) -> Record | str:
    text, wrong = _text(value)
    return f"the text {wrong}" if wrong else (title, text, None)


def _text(value: Any) -> tuple[str, str]:
    """(the text, "") — a string as is; a list of sentences joined with spaces, of paragraphs
    with blank lines — or ("", what is wrong with it)."""
    if isinstance(value, list) and all(isinstance(part, str) for part in value):
        parts = [part.strip() for part in value if part.strip()]
        multiline = any("\n" in part for part in parts)
        paragraphs = multiline or (bool(parts) and sum(map(len, parts)) / len(parts) > 400)
        value = ("\n\n" if paragraphs else " ").join(parts)
    if not isinstance(value, str):
        return "", f"must be a string or a list of strings, not {_kind(value)}"
    return (value.strip(), "") if value.strip() else ("", "is empty")


def _kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true/false"
    names = {dict: "an object", list: "a list", str: "a string", int: "a number", float: "a number"}
    return names.get(type(value), type(value).__name__)
