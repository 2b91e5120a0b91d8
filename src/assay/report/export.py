"""``assay export``: a run's report as Markdown, JSON, self-contained HTML or PDF.

The HTML is ``report.html``'s page, the one the web app shows; the PDF is that page
printed by headless Chromium (``report.pdf``), so all four formats come from one renderer.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Literal

from assay.errors import BadInputError
from assay.report.html import (
    ReportParts,
    inline_snapshot_href,
    inline_snapshots,
    render_report_html,
    report_parts,
)
from assay.store.runs import Run

ExportFormat = Literal["md", "json", "html", "pdf"]
EXPORT_FORMATS: tuple[ExportFormat, ...] = ("md", "json", "html", "pdf")


def parse_format(text: str) -> ExportFormat:
    for fmt in EXPORT_FORMATS:
        if text == fmt:
            return fmt
    raise BadInputError(f"the format must be one of {', '.join(EXPORT_FORMATS)}, not {text!r}")


def report_json(run: Run, parts: ReportParts) -> str:
    """The run, its report, claims and sources as one JSON document."""
    data = {
        "run": run.info.model_dump(mode="json"),
        "status": run.info.effective_status(),
        "report_markdown": parts.markdown,
        "claims": [c.to_json() for c in parts.claims],
        "sources": [s.model_dump(mode="json") for s in parts.sources],
    }
    return json.dumps(data, ensure_ascii=False, indent=2) + "\n"


def export_bytes(run: Run, fmt: ExportFormat) -> bytes:
    """The report of ``run`` in ``fmt``; an HTML page carries the snapshots it quotes."""
    parts = report_parts(run)
    if fmt == "md":
        return parts.markdown.encode("utf-8")
    if fmt == "json":
        return report_json(run, parts).encode("utf-8")
    page = render_report_html(parts, inline_snapshot_href, inline_snapshots(run, parts))
    if fmt == "html":
        return page.encode("utf-8")
    from assay.report.pdf import html_to_pdf  # only a PDF needs a browser

    return html_to_pdf(page)


def default_export_path(run: Run, fmt: ExportFormat) -> Path:
    """``<run id>.<format>`` in the current directory: never over the run's own files."""
    return Path.cwd() / f"{run.id}.{fmt}"
