"""The ``assay runs`` table, laid out for the terminal's width with every column readable.

One line per run when every column fits beside a topic column of ``TOPIC_ROOM`` cells
(a longer topic wraps in it rather than being cut). When they do not (an 80-column
terminal, or a pipe, which rich lays out at 80), each run takes two lines: the id (what
``show``, ``resume`` and ``verify`` take, never cut), status and claims, then, indented,
when it started, its protocol, how long it took and its topic, wrapped. Nothing is
dropped: an earlier layout left out the columns that did not fit, without a word.

Cells are plain text (``output.plain``), never markup: a topic is the user's words.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from rich.cells import cell_len
from rich.console import Console, Group, RenderableType
from rich.padding import Padding
from rich.table import Table
from rich.text import Text

from assay.cli.output import plain

Row = Mapping[str, Any]
TOPIC_ROOM = 40
"""One line per run needs this much room for the topic (or the longest topic, if shorter):
narrower, and most rows would wrap anyway; two lines read better then."""
TOPIC_MIN_WIDTH = 16
GAP = 2  # the padding between two columns (no box, no padding at the edges)
INDENT = 2  # the second line of a run, under its id


@dataclass(frozen=True)
class Column:
    header: str
    cell: Callable[[Row], str]


def _duration(row: Row) -> str:
    seconds = row["duration_s"]
    return "-" if seconds is None else f"{seconds:.1f}s"


COLUMNS = {
    "id": Column("id", lambda row: plain(row["id"])),
    "started": Column("started", lambda row: row["started"][:16].replace("T", " ")),
    "protocol": Column("protocol", lambda row: plain(row["protocol"])),
    "status": Column("status", lambda row: str(row["status"])),
    "claims": Column("claims", lambda row: f"{row['claims_verified']}/{row['claims_total']}"),
    "duration": Column("duration", _duration),
    "topic": Column("topic", lambda row: plain(row["topic"])),
}
ONE_LINE = ("id", "started", "protocol", "status", "claims", "duration", "topic")
FIRST_LINE = ("id", "status", "claims")
SECOND_LINE = ("started", "protocol", "duration", "topic")


def runs_table(rows: Sequence[Row], console: Console) -> RenderableType:
    """Every run with every column: one line each if they fit the console, else two."""
    width = console.width
    widths = {name: _width(rows, column) for name, column in COLUMNS.items()}
    fixed = _span(widths, ONE_LINE[:-1]) + GAP
    if fixed + min(widths["topic"], TOPIC_ROOM) <= width:
        widths["topic"] = min(widths["topic"], width - fixed)
        return _grid(ONE_LINE, widths, [_headers(ONE_LINE), *(_cells(ONE_LINE, r) for r in rows)])
    first: tuple[str, ...] = FIRST_LINE
    second: tuple[str, ...] = SECOND_LINE
    if _span(widths, first) > width:  # narrower than an id and its status: the id alone
        first, second = first[:1], (*first[1:], *second)
    room = width - INDENT - _span(widths, second[:-1]) - GAP
    lines: list[RenderableType] = []
    for cells in (_headers, *(_row_cells(row) for row in rows)):
        lines.append(_joined(cells(first), first, widths))
        below = cells(second)
        if room < TOPIC_MIN_WIDTH:  # too narrow for columns: one line that wraps
            lines.append(Padding(Text("  ").join(below), (0, 0, 0, INDENT), expand=False))
            continue
        # Text, not a table per run: a thousand runs render in a fraction of a second.
        head = Text(" " * INDENT) + _joined(below[:-1], second, widths, ragged=False)
        head.append(" " * GAP)
        topic, *more = below[-1].wrap(console, room) or [Text()]
        for line in (topic, *more):
            line.rstrip()  # the space a line was broken at
        lines += [head + topic, *(Text(" " * cell_len(head.plain)) + line for line in more)]
    return Group(*lines)


def _row_cells(row: Row) -> Callable[[Sequence[str]], list[Text]]:
    return lambda names: _cells(names, row)


def _joined(
    cells: list[Text], names: Sequence[str], widths: dict[str, int], *, ragged: bool = True
) -> Text:
    """``cells`` padded to their columns' widths, ``GAP`` apart, in one Text (``ragged``:
    the last one as it is, no trailing spaces)."""
    padded = cells[:-1] if ragged else cells
    for cell, name in zip(padded, names, strict=False):
        cell.pad_right(widths[name] - cell.cell_len)
    return Text(" " * GAP).join(cells)


def _width(rows: Sequence[Row], column: Column) -> int:
    return max(cell_len(column.header), *(cell_len(column.cell(row)) for row in rows))


def _span(widths: dict[str, int], names: Sequence[str]) -> int:
    return sum(widths[name] for name in names) + GAP * (len(names) - 1)


def _headers(names: Sequence[str]) -> list[Text]:
    return [Text(COLUMNS[name].header, style="bold") for name in names]


def _cells(names: Sequence[str], row: Row) -> list[Text]:
    return [Text(COLUMNS[name].cell(row)) for name in names]


def _grid(names: Sequence[str], widths: dict[str, int], lines: list[list[Text]]) -> Table:
    # Every width is set, so rich never squeezes a column to "2026…"; the topic wraps (at
    # spaces; a word longer than its column is folded).
    table = Table(box=None, pad_edge=False, padding=(0, GAP // 2), show_header=False)
    for name in names:
        table.add_column(width=widths[name], no_wrap=name != "topic", overflow="fold")
    for cells in lines:
        table.add_row(*cells)
    return table
