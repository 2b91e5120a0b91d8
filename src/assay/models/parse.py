"""Tolerant JSON extraction from a model's text reply.

Small models wrap JSON in many ways; this finds the value in the first that parses of:
the text itself, each fenced code block, and each balanced ``{...}``/``[...]`` region.
Reasoning blocks (``<think>...</think>``) are already gone: the typed call strips them from
every reply (``models/reasoning.py``). A candidate that does not parse is tried again
with trailing commas removed (outside strings only, so string content is never changed).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

_FENCE = re.compile(r"```[\w+-]*[ \t]*\n?(.*?)```", re.DOTALL)
_MAX_REGIONS = 20


class JSONNotFound(ValueError):
    """No JSON value could be read from the reply."""


def extract_json(text: str) -> Any:
    """The first JSON value found in ``text``; raises ``JSONNotFound`` saying why not."""
    cleaned = text.strip()
    if not cleaned:
        raise JSONNotFound("the reply was empty (or only reasoning)")
    first_error: json.JSONDecodeError | None = None
    for candidate in _candidates(cleaned):
        try:
            return _loads(candidate)
        except json.JSONDecodeError as exc:
            first_error = first_error or exc
    if first_error is None:
        raise JSONNotFound("the reply holds no JSON object")
    raise JSONNotFound(f"the reply is not valid JSON: {first_error.msg} ({_where(first_error)})")


def _candidates(text: str) -> Iterator[str]:
    if text[:1] in "{[":
        yield text
    for match in _FENCE.finditer(text):
        block = match.group(1).strip()
        if block:
            yield block
    yield from _balanced_regions(text)


def _loads(candidate: str) -> Any:
    try:
        return json.loads(candidate)
    except json.JSONDecodeError:
        repaired = remove_trailing_commas(candidate)
        if repaired == candidate:
            raise
        return json.loads(repaired)


def _balanced_regions(text: str) -> Iterator[str]:
    """Each top-level ``{...}`` or ``[...]`` region, string-aware, in order."""
    found = 0
    start = 0
    while found < _MAX_REGIONS:
        opening = min(
            (i for i in (text.find("{", start), text.find("[", start)) if i >= 0), default=-1
        )
        if opening < 0:
            return
        end = _matching_close(text, opening)
        if end < 0:
            return
        yield text[opening : end + 1]
        found += 1
        start = end + 1


def _matching_close(text: str, opening: int) -> int:
    depth = 0
    in_string = False
    escaped = False
    for index in range(opening, len(text)):
        char = text[index]
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in "{[":
            depth += 1
        elif char in "}]":
            depth -= 1
            if depth == 0:
                return index
    return -1


def remove_trailing_commas(text: str) -> str:
    """Drop commas that directly precede ``}`` or ``]`` (whitespace between), outside strings."""
    out: list[str] = []
    in_string = False
    escaped = False
    for index, char in enumerate(text):
        if in_string:
            out.append(char)
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
            continue
        if char == '"':
            in_string = True
        elif char == "," and _next_significant(text, index + 1) in ("}", "]"):
            continue
        out.append(char)
    return "".join(out)


def _next_significant(text: str, start: int) -> str:
    for index in range(start, len(text)):
        if not text[index].isspace():
            return text[index]
    return ""


def _where(error: json.JSONDecodeError) -> str:
    return f"line {error.lineno} column {error.colno}"
