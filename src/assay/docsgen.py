"""Generated documentation: ``python -m assay.docsgen`` rewrites docs/events.md;
``python -m assay.docsgen docs/api.md`` writes the REST reference (``web.apidocs``).

A test compares the checked-in page with ``events_markdown()``, so CI fails when an
event changes and the page does not.
"""

from __future__ import annotations

import sys
from pathlib import Path

from assay.events import EVENT_TYPES, Event, event_type

_HEADER = """# Events

Every line of a run's `run.log.jsonl` is `{"type": ..., "data": {...}, "ts": ..., "seq": n}`:
`ts` is ISO-8601 UTC, `seq` counts from 0 and continues across resumes. The `data` of each
type is below. A reader (`assay resume`, the TUI panes, the web report) skips a line of a type it
does not know or whose data does not match its type, so logs of older and newer versions
still open; `assay show` and the SSE stream pass every line on as it is. This page is
generated from `src/assay/events.py` by `python -m assay.docsgen`; do not edit it by hand.
"""


def _type_name(annotation: object) -> str:
    text = getattr(annotation, "__name__", None) if isinstance(annotation, type) else None
    return (text or str(annotation).replace("typing.", "")).replace("|", "\\|")


def _section(cls: type[Event]) -> str:
    lines = [f"## `{event_type(cls)}`", "", (cls.__doc__ or "").strip(), ""]
    fields = {name: info for name, info in cls.model_fields.items() if name != "type"}
    if fields:
        lines += ["| field | type | required |", "|---|---|---|"]
        for name, info in fields.items():
            alias = info.alias or name
            required = "yes" if info.is_required() else "no"
            lines.append(f"| `{alias}` | `{_type_name(info.annotation)}` | {required} |")
        lines.append("")
    return "\n".join(lines)


def events_markdown() -> str:
    sections = [_section(cls) for cls in EVENT_TYPES.values()]
    return _HEADER + "\n" + "\n".join(sections)


def main() -> None:
    target = Path(sys.argv[1]) if len(sys.argv) > 1 else Path("docs/events.md")
    if target.name == "api.md":
        from assay.web.apidocs import api_markdown  # needs the web extra

        target.write_text(api_markdown(), encoding="utf-8")
    else:
        target.write_text(events_markdown(), encoding="utf-8")
    print(f"wrote {target}")


if __name__ == "__main__":
    main()
