"""Evaluation datasets: questions with gold answers, or claims with gold labels.

A dataset is a JSON array or a JSONL file of objects. Fields are recognised by their usual
spellings, whatever the dataset:

    id        id | _id | claim_id                    (else the item's position)
    question  question          — or claim: claim (a claim dataset)
    gold      answer | answers (a list); aliases | answer_aliases add accepted answers
    label     label | claim_label: SUPPORTS, REFUTES, NOT_ENOUGH_INFO or DISPUTED
    type      type (a breakdown key: bridge, comparison, ...)
    gold passages  supporting_facts: [[title, sentence index], ...], or the titles of the
                   paragraphs marked is_supporting (scored as recall)
    inline corpus  context: [[title, [sentences]], ...], evidences: [{article, evidence}] or
                   paragraphs: [{title, paragraph_text | text, is_supporting}]

An inline corpus (the union over the selected items) is what the lab serves when no
``--corpus`` is given.
"""

from __future__ import annotations

import json
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from assay.errors import BadInputError
from assay.gather.documents import Document, make_doc_id
from assay.input_lines import BOM, BadLine, json_lines, not_utf8

LABELS = ("SUPPORTS", "REFUTES", "NOT_ENOUGH_INFO", "DISPUTED")
Kind = Literal["questions", "claims"]


@dataclass(frozen=True)
class EvalItem:
    """One question (or claim) and what counts as right."""

    id: str
    text: str
    answers: tuple[str, ...] = ()
    label: str | None = None
    type: str = "all"
    gold_titles: frozenset[str] = frozenset()
    passages: tuple[tuple[str, str], ...] = field(default=(), repr=False)  # (title, sentence)


@dataclass(frozen=True)
class Dataset:
    kind: Kind
    items: list[EvalItem]
    problems: tuple[str, ...] = ()
    """The lines (or array items) that could not be items, each ``FILE:LINE: why``."""

    def corpus(self) -> list[Document]:
        """The items' inline passages, one document per title (empty: none carried)."""
        by_title: dict[str, list[str]] = defaultdict(list)
        for item in self.items:
            for title, sentence in item.passages:
                if sentence not in by_title[title]:
                    by_title[title].append(sentence)
        return [
            Document(doc_id=make_doc_id(title), title=title, text="\n\n".join(sentences))
            for title, sentences in sorted(by_title.items())
        ]


def load_dataset(path: Path, *, limit: int | None = None, offset: int = 0) -> Dataset:
    """The items ``offset`` .. ``offset + limit`` of ``path``.

    A line (or array item) that cannot be an item is named in ``problems`` and the others are
    kept, as ``assay batch`` does; it keeps its place, so no other item's position (its
    default id) moves when it is fixed."""
    entries = _entries(path)[offset : None if limit is None else offset + limit]
    first = next((entry.record for entry in entries if entry.record is not None), None)
    kind: Kind = "claims" if first and "claim" in first and "question" not in first else "questions"
    items, problems = [], []
    for position, entry in enumerate(entries, start=offset):
        if entry.record is None:
            problems.append(entry.problem)
            continue
        try:
            items.append(_item(entry.record, position, kind, entry.where))
        except BadInputError as exc:
            problems.append(exc.message)
    if not items:
        why = f"; {problems[0]}" if problems else ""
        raise BadInputError(f"{path}: no items (after --offset {offset}){why}")
    return Dataset(kind, items, tuple(problems))


@dataclass(frozen=True)
class _Entry:
    """One item's place in the file (``FILE:LINE`` or ``FILE: item N``) and its record, or
    (no record) what is wrong with it."""

    where: str
    record: dict[str, Any] | None
    problem: str = ""


def _entries(path: Path) -> list[_Entry]:
    """Every item of the file in order: a JSON array's, or a JSONL file's non-blank lines."""
    if not path.is_file():
        raise BadInputError(f"no such dataset: {path}")
    try:
        data = path.read_bytes().removeprefix(BOM)
    except OSError as exc:
        raise BadInputError(f"{path}: cannot read: {exc.strerror or exc}") from None
    if _is_array(data):
        return [_entry(f"{path}: item {n}", item) for n, item in enumerate(_array(path, data), 1)]
    return [
        _Entry(line.describe(path), None, line.describe(path))
        if isinstance(line, BadLine)
        else _entry(f"{path}:{line[0]}", line[1])
        for line in json_lines(data)
    ]


def _entry(where: str, value: Any) -> _Entry:
    if isinstance(value, dict):
        return _Entry(where, value)
    return _Entry(where, None, f"{where}: expected a JSON object, got {type(value).__name__}")


def _is_array(data: bytes) -> bool:
    """A JSON array (one line or many), rather than JSON Lines whose first line is a list."""
    head, _, rest = data.lstrip().partition(b"\n")
    if not head.startswith(b"["):
        return False
    if not rest.strip():
        return True
    try:
        json.loads(head)
    except (ValueError, RecursionError):  # "[" alone, or the start of a pretty-printed array
        return True
    return False


def _array(path: Path, data: bytes) -> list[Any]:
    broken = not_utf8(data)
    if broken:
        raise BadInputError(f"{path}: {broken}")
    try:
        items = json.loads(data)
    except (json.JSONDecodeError, RecursionError) as exc:
        raise BadInputError(f"{path}: not valid JSON ({exc})") from None
    if not isinstance(items, list):
        raise BadInputError(f"{path}: expected a JSON array of objects")
    return items


def _item(record: dict[str, Any], position: int, kind: Kind, where: str) -> EvalItem:
    ident = str(record.get("id", record.get("_id", record.get("claim_id", position))))
    text = record.get("claim" if kind == "claims" else "question")
    if not isinstance(text, str) or not text.strip():
        raise BadInputError(f"{where}: no {kind[:-1]} text")
    label = record.get("label", record.get("claim_label"))
    if kind == "claims" and label not in LABELS:
        raise BadInputError(f"{where}: label must be one of {LABELS}")
    return EvalItem(
        id=ident,
        text=text.strip(),
        answers=_answers(record),
        label=str(label) if label is not None else None,
        type=str(record.get("type") or "all"),
        gold_titles=_gold_titles(record),
        passages=_passages(record),
    )


def _answers(record: dict[str, Any]) -> tuple[str, ...]:
    given = record.get("answers", record.get("answer"))
    answers = [given] if isinstance(given, str) else list(given or [])
    answers += list(record.get("aliases") or record.get("answer_aliases") or [])
    # an alias list often repeats the answer itself: each accepted answer once, in order
    return tuple(dict.fromkeys(str(a).strip() for a in answers if str(a).strip()))


def _gold_titles(record: dict[str, Any]) -> frozenset[str]:
    titles = {str(fact[0]) for fact in record.get("supporting_facts") or [] if fact}
    titles |= {title for title, _, supporting in _paragraphs(record) if supporting}
    return frozenset(titles)


def _paragraphs(record: dict[str, Any]) -> list[tuple[str, str, bool]]:
    """(title, text, is_supporting) of the item's ``paragraphs`` that have both."""
    out = []
    for paragraph in record.get("paragraphs") or []:
        if isinstance(paragraph, dict):
            title = paragraph.get("title")
            text = paragraph.get("paragraph_text", paragraph.get("text"))
            if title and isinstance(text, str) and text.strip():
                out.append((str(title), text.strip(), bool(paragraph.get("is_supporting"))))
    return out


def _passages(record: dict[str, Any]) -> tuple[tuple[str, str], ...]:
    out: list[tuple[str, str]] = []
    for entry in record.get("context") or []:
        if isinstance(entry, list | tuple) and len(entry) == 2:
            title, sentences = entry
            text = "".join(sentences) if isinstance(sentences, list) else str(sentences)
            out.append((str(title), text.strip()))
    for evidence in record.get("evidences") or []:
        if isinstance(evidence, dict):
            title = evidence.get("article", evidence.get("title"))
            sentence = evidence.get("evidence", evidence.get("text"))
            if title and sentence:
                out.append((str(title), str(sentence).strip()))
    out += [(title, text) for title, text, _ in _paragraphs(record)]
    return tuple(out)
