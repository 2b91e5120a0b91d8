"""The ``assay runs`` table, laid out for the terminal's width.

Rich squeezes every column of a table that is too wide until the cells read "…", so
columns are chosen instead: the id (what ``show``, ``resume`` and ``verify`` take) is
always shown in full, then status and claims, then as many of topic, protocol, duration
and start as fit; the topic is shortened with "…" to the width that is left.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from rich.cells import cell_len
from rich.table import Table

from assay.cli.output import shown

Row = Mapping[str, Any]
TOPIC_MIN_WIDTH = 16
GAP = 2  # the padding between two columns (no box, no padding at the edges)


@dataclass(frozen=True)
class Column:
    header: str
    cell: Callable[[Row], str]
    flexible: bool = False  # takes the width left, shortened with "…"


def _duration(row: Row) -> str:
    seconds = row["duration_s"]
    return "-" if seconds is None else f"{seconds:.1f}s"


# In the order they are shown.
COLUMNS = {
    "id": Column("id", lambda row: shown(row["id"])),
    "started": Column("started", lambda row: row["started"][:16].replace("T", " ")),
    "protocol": Column("protocol", lambda row: shown(row["protocol"])),
    "status": Column("status", lambda row: str(row["status"])),
    "claims": Column("claims", lambda row: f"{row['claims_verified']}/{row['claims_total']}"),
    "duration": Column("duration", _duration),
    "topic": Column("topic", lambda row: shown(row["topic"]), flexible=True),
}
# In the order they are given room.
PRIORITY = ("id", "status", "claims", "topic", "protocol", "duration", "started")


def _width(rows: Sequence[Row], column: Column) -> int:
    return max(cell_len(column.header), *(cell_len(column.cell(row)) for row in rows))


def _table(rows: Sequence[Row], names: list[str], widths: dict[str, int]) -> Table:
    # Every width is set, so rich never squeezes a column (it would cut an id to "2026…").
    table = Table(box=None, pad_edge=False, padding=(0, 1))
    shown_names = [n for n in COLUMNS if n in names]
    for name in shown_names:
        table.add_column(
            COLUMNS[name].header, width=widths[name], no_wrap=True, overflow="ellipsis"
        )
    for row in rows:
        table.add_row(*(COLUMNS[name].cell(row) for name in shown_names))
    return table


def runs_table(rows: Sequence[Row], width: int) -> Table:
    """The columns, by priority, whose narrowest layout fits in ``width`` cells."""
    widths = {name: _width(rows, column) for name, column in COLUMNS.items()}
    names: list[str] = []
    used = 0
    for name in PRIORITY:
        least = TOPIC_MIN_WIDTH if COLUMNS[name].flexible else widths[name]
        needed = least + (GAP if names else 0)
        if not names or used + needed <= width:
            names.append(name)
            used += needed
    for name in names:
        if COLUMNS[name].flexible:  # the rest of the line, up to the longest topic
            widths[name] = min(widths[name], TOPIC_MIN_WIDTH + width - used)
    return _table(rows, names, widths)
