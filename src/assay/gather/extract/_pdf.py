"""PDF → text with pypdfium2 (the ``pdf`` extra): one form feed between pages.

PDFium is not thread-safe, so every use of it holds one process-wide lock.
"""

from __future__ import annotations

import functools
import re
import threading
from importlib import metadata
from typing import Any

from assay.errors import FetchError
from assay.gather.extract._types import Extracted

PDF_TYPE = "application/pdf"
PAGE_BREAK = "\n\f\n"
_PDFIUM_LOCK = threading.Lock()
_PDF_DATE = re.compile(r"(?:D:)?(\d{4})(\d{2})(\d{2})")


def extract_pdf(data: bytes, url: str | None = None) -> Extracted:
    """The text of every page, and title, author and date from the document's metadata.

    Raises ``FetchError`` for data PDFium cannot open (corrupt, truncated, encrypted) and
    when the ``pdf`` extra is not installed.
    """
    where = url or "<pdf>"
    pdfium = _import_pdfium(where)
    with _PDFIUM_LOCK:
        try:
            document = pdfium.PdfDocument(data)
        except pdfium.PdfiumError as exc:
            raise FetchError(where, f"unreadable PDF: {exc}") from None
        try:
            info: dict[str, str] = {str(k): str(v) for k, v in document.get_metadata_dict().items()}
            pages = [_page_text(document, index) for index in range(len(document))]
        except pdfium.PdfiumError as exc:
            raise FetchError(where, f"unreadable PDF: {exc}") from None
        finally:
            document.close()
    return Extracted(
        title=info.get("Title", "").strip() or None,
        author=info.get("Author", "").strip() or None,
        date=_iso_date(info.get("CreationDate", "")),
        text=PAGE_BREAK.join(pages),
        content_type=PDF_TYPE,
        extractor=_extractor_name(),
    )


@functools.cache
def _extractor_name() -> str:
    return f"pypdfium2 {metadata.version('pypdfium2')}"


def _import_pdfium(where: str) -> Any:
    try:
        import pypdfium2
    except ImportError:
        raise FetchError(where, "PDF text needs the pdf extra: pip install 'assay[pdf]'") from None
    return pypdfium2


def _page_text(document: Any, index: int) -> str:
    page = document[index]
    try:
        textpage = page.get_textpage()
        try:
            text = str(textpage.get_text_range())
        finally:
            textpage.close()
    finally:
        page.close()
    lines = (line.rstrip() for line in text.replace("\r\n", "\n").replace("\r", "\n").split("\n"))
    return "\n".join(lines).strip().replace("\f", "\n")


def _iso_date(value: str) -> str | None:
    """``D:20240102030405Z`` → ``2024-01-02``; None unless year, month and day are there."""
    match = _PDF_DATE.match(value.strip())
    if match is None:
        return None
    year, month, day = match.groups()
    if "01" <= month <= "12" and "01" <= day <= "31":
        return f"{year}-{month}-{day}"
    return None
