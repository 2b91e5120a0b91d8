"""Extraction: a fetched body in, its main text (markdown) and what is known about it out.

``extract`` dispatches on the media type; ``extract_html`` and ``extract_pdf`` can be called
directly. Page text is data: nothing in it is executed or followed, and scripts, styles and
hidden elements never reach the text. Bad bytes never raise; an unreadable PDF or a body that
is not text raises ``FetchError`` (the run skips that source and goes on).
"""

from __future__ import annotations

from assay.gather.extract._dispatch import extract
from assay.gather.extract._html import extract_html
from assay.gather.extract._pdf import extract_pdf
from assay.gather.extract._types import Extracted

__all__ = ["Extracted", "extract", "extract_html", "extract_pdf"]
