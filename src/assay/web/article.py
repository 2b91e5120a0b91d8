"""The report as the report page shows it: without what the page around it already shows.

The page's header names the question, its answer card gives the short answer and its
sources panel lists the sources (with their saved snapshots); the report itself opens
with the same title and **Answer:** line and ends with its own source list. The page
shows each once: the report's title and answer line are left out of the article, and its
source list gives way to the panel, whose entries take the numbers the report cites them
by ([N] differs between protocols: the ledger's order, the order first cited, the order
read). report.md and every export keep the report whole.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from assay.language import report_texts
from assay.report.reading import answer_prefixes
from assay.web.report_view import SourceRow

_LIST_HEADINGS = ("References", "Bibliography")
"""Source lists by other names than the report text's "sources" (web-research, deep)."""
_HEADING = re.compile(r"^(#{1,6}) (.+?)\s*$")
_NUMBERED = re.compile(r"^(?:(\d+)\. |\[(\d+)\] )")
_URL = re.compile(r"https?://[^\s<>()\[\]]+")


@dataclass(frozen=True)
class PageArticle:
    markdown: str
    numbers: Mapping[str, int]
    """Each URL of the report's source list, with the number the report cites it by."""


def page_article(markdown: str, *, answer_shown: bool) -> PageArticle:
    """``markdown`` without its title, without its answer line when the page's card shows
    the answer, and without its source list (whose numbers are returned)."""
    lines = markdown.splitlines()
    if lines and lines[0].startswith("# "):
        lines = lines[1:]
    if answer_shown:
        prefixes = tuple(answer_prefixes())
        lines = [line for line in lines if not line.startswith(prefixes)]
    kept, numbers = _without_source_list(lines)
    return PageArticle("\n".join(kept).strip("\n") + "\n", numbers)


def _without_source_list(lines: list[str]) -> tuple[list[str], dict[str, int]]:
    names = {*report_texts("sources"), *_LIST_HEADINGS}
    kept: list[str] = []
    numbers: dict[str, int] = {}
    level = 0  # the source list's heading level while inside it
    for line in lines:
        heading = _HEADING.match(line)
        if level and (line.strip() == "---" or (heading and len(heading.group(1)) <= level)):
            level = 0
        if not level and heading and len(heading.group(1)) > 1 and heading.group(2) in names:
            level = len(heading.group(1))
            continue
        if not level:
            kept.append(line)
            continue
        number, url = _NUMBERED.match(line), _URL.search(line)
        if number and url:
            numbers.setdefault(url.group(0).rstrip(".,;"), int(number.group(1) or number.group(2)))
    return kept, numbers


@dataclass(frozen=True)
class NumberedRow:
    row: SourceRow
    number: int | None
    """The number the report cites the source by (None: not in its list)."""


def numbered_rows(rows: Sequence[SourceRow], numbers: Mapping[str, int]) -> list[NumberedRow]:
    """The panel's rows in the report's numbering, those it does not list after them."""
    found = [
        NumberedRow(r, numbers.get(r.source.url) or numbers.get(r.source.final_url or ""))
        for r in rows
    ]
    numbered = sorted((n for n in found if n.number is not None), key=lambda n: n.number or 0)
    return numbered + [n for n in found if n.number is None]
