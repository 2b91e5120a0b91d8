"""Choose the extractor from the media type (sniffing only when the type says nothing)."""

from __future__ import annotations

import dataclasses
import json
import re
from typing import Literal

from assay.errors import FetchError
from assay.gather.extract._decode import decode
from assay.gather.extract._html import extract_html
from assay.gather.extract._pdf import PDF_TYPE, extract_pdf
from assay.gather.extract._types import Extracted

Kind = Literal["html", "pdf", "json", "text"]

_HTML_TYPES = frozenset({"text/html", "application/xhtml+xml"})
_PDF_TYPES = frozenset({PDF_TYPE, "application/x-pdf"})
_JSON_TYPES = frozenset({"application/json", "text/json"})
_TEXT_APPLICATION_TYPES = frozenset(
    {
        "application/xml",
        "application/javascript",
        "application/ecmascript",
        "application/x-javascript",
        "application/yaml",
        "application/x-yaml",
        "application/toml",
        "application/sql",
        "application/x-sh",
        "application/x-tex",
    }
)
_UNTYPED = frozenset({"", "application/octet-stream", "binary/octet-stream", "application/unknown"})
_HTML_START = re.compile(
    rb"\s*(?:<!--.*?-->\s*)*<(?:!doctype\s+html|html|head|body)\b", re.I | re.S
)
_CHARSET_PARAM = re.compile(r"""charset\s*=\s*["']?([^"';\s]+)""", re.I)
_BACKTICKS = re.compile(r"`{3,}")


def extract(
    body: bytes, content_type: str, charset: str | None = None, url: str | None = None
) -> Extracted:
    """Extract the main text of ``body`` according to its media type.

    ``content_type`` may carry parameters (``text/html; charset=iso-8859-1``); an explicit
    ``charset`` wins over the parameter. HTML and XHTML go to ``extract_html``, PDF to
    ``extract_pdf``, JSON is pretty-printed in a fenced block, other text is passed through
    decoded. An untyped body (none, ``application/octet-stream``) is sniffed; a body that is
    none of these raises ``FetchError``, as does an unreadable PDF.
    """
    media, param = _split_content_type(content_type)
    charset = charset or param
    kind = _kind(media, body)
    if kind is None:
        raise FetchError(url or "<body>", f"no text extractor for {media or 'untyped'} content")
    if kind == "pdf":
        return extract_pdf(body, url=url)
    if kind == "html":
        result = extract_html(decode(body, charset, sniff_markup=True), url)
        media = media if media in _HTML_TYPES else result.content_type
        return dataclasses.replace(result, content_type=media)
    text = decode(body, charset)
    if media in _UNTYPED:
        media = "application/json" if kind == "json" else "text/plain"
    if kind == "json":
        return _json(text, media)
    return Extracted(None, None, None, text, media, "plain")


def _split_content_type(content_type: str) -> tuple[str, str | None]:
    media, _, params = content_type.partition(";")
    match = _CHARSET_PARAM.search(params)
    return media.strip().lower(), match.group(1) if match else None


def _kind(media: str, body: bytes) -> Kind | None:
    if media in _HTML_TYPES:
        return "html"
    if media in _PDF_TYPES:
        return "pdf"
    if media in _JSON_TYPES or media.endswith("+json"):
        return "json"
    if media.startswith("text/") or media in _TEXT_APPLICATION_TYPES:
        return "text"
    if media.endswith("+xml") and not media.startswith("image/"):  # feeds yes, SVG no
        return "text"
    if media in _UNTYPED:
        return _sniff(body)
    return None


def _sniff(body: bytes) -> Kind | None:
    head = body[:1024]
    if head.startswith(b"%PDF-"):
        return "pdf"
    if _HTML_START.match(head):
        return "html"
    if b"\x00" in head:
        return None
    try:
        text = body.decode("utf-8-sig")
    except UnicodeDecodeError:
        return None
    return "json" if _is_json(text) else "text"


def _is_json(text: str) -> bool:
    if not text.lstrip().startswith(("{", "[")):
        return False
    try:
        json.loads(text)
    except (ValueError, RecursionError):
        return False
    return True


def _json(text: str, media: str) -> Extracted:
    """Pretty-printed JSON in a fence longer than any backtick run inside it."""
    try:
        pretty = json.dumps(json.loads(text), indent=2, ensure_ascii=False)
    except (ValueError, RecursionError):  # not JSON after all: keep the text as it came
        return Extracted(None, None, None, text, media, "plain")
    fence = "`" * max([3, *(len(run) + 1 for run in _BACKTICKS.findall(pretty))])
    return Extracted(None, None, None, f"{fence}json\n{pretty}\n{fence}", media, "json")
