"""HTML to PDF through headless Chromium's print-to-PDF.

Chromium rather than WeasyPrint or a similar library: the PDF is the very page the web
app and the HTML export show (same CSS engine, same fonts), Chromium is one Debian package
that the browser tests need anyway, and it brings no Python dependency with native
libraries (WeasyPrint needs Pango; wkhtmltopdf is unmaintained). The page's script does
not matter for print: the quotes stay in the report text under each finding.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from pathlib import Path

from assay.errors import ConfigError, UserError

_CANDIDATES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
PRINT_TIMEOUT_S = 60.0


def chromium_path() -> str:
    """``ASSAY_CHROMIUM`` or the first Chromium on PATH; UserError when there is none, and
    ConfigError when ``ASSAY_CHROMIUM`` names no program (a typo there is not a reason to
    fall back to another browser quietly)."""
    configured = os.environ.get("ASSAY_CHROMIUM")
    if configured:
        return _configured_program(configured)
    for name in _CANDIDATES:
        found = shutil.which(name)
        if found:
            return found
    raise UserError(
        "PDF export needs Chromium: install it (Debian: apt-get install chromium) "
        "or set ASSAY_CHROMIUM to its path"
    )


def _configured_program(path: str) -> str:
    found = Path(path).expanduser()
    problem = (
        "there is no such file" if not found.exists()
        else "it is not a file" if not found.is_file()
        else "it is not executable" if not os.access(found, os.X_OK)
        else None
    )  # fmt: skip
    if problem is not None:
        raise ConfigError(
            f"ASSAY_CHROMIUM is {path!r}, but {problem}: set it to Chromium's program "
            "(e.g. /usr/bin/chromium) or unset it to use the Chromium on PATH"
        )
    return str(found)


def html_to_pdf(page: str, *, timeout: float = PRINT_TIMEOUT_S) -> bytes:
    """``page`` printed to PDF by headless Chromium, in a throw-away profile."""
    with tempfile.TemporaryDirectory(prefix="assay-pdf-") as folder:
        source = Path(folder) / "report.html"
        target = Path(folder) / "report.pdf"
        source.write_text(page, encoding="utf-8")
        command = [
            chromium_path(), "--headless", "--disable-gpu", *_root_flags(),
            "--no-pdf-header-footer", f"--user-data-dir={folder}/profile",
            f"--print-to-pdf={target}", source.as_uri(),
        ]  # fmt: skip
        try:
            subprocess.run(command, capture_output=True, timeout=timeout, check=False)
        except subprocess.TimeoutExpired:
            raise UserError(f"Chromium did not print the PDF within {timeout:.0f}s") from None
        if not target.is_file():
            raise UserError("Chromium did not write the PDF")
        return target.read_bytes()


def _root_flags() -> list[str]:
    """Chromium refuses to start as root with its sandbox (containers, CI); the page it
    prints is assay's own, with every page-derived text escaped."""
    return ["--no-sandbox"] if hasattr(os, "geteuid") and os.geteuid() == 0 else []
