"""Bytes to text without ever raising: BOM, then the header's charset, then the page's own
declaration (``<meta charset>``, ``http-equiv``, ``<?xml encoding?>``), then UTF-8 with
replacement characters.

Labels follow the WHATWG Encoding Standard where Python differs: ``iso-8859-1``, ``latin1``
and ``ascii`` mean windows-1252 on the web, and UTF-7 is never honoured.
"""

from __future__ import annotations

import codecs
import re

_BOMS = (
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)
_WEB_ALIASES = {
    "ascii": "cp1252",
    "us-ascii": "cp1252",
    "iso-8859-1": "cp1252",
    "iso8859-1": "cp1252",
    "iso_8859-1": "cp1252",
    "latin1": "cp1252",
    "latin-1": "cp1252",
    "l1": "cp1252",
    "cp819": "cp1252",
    "ibm819": "cp1252",
    "x-sjis": "shift_jis",
    "x-gbk": "gbk",
}
_REFUSED = frozenset({"utf-7", "utf7", "unicode-1-1-utf-7", "csunicode11utf7"})
_DECLARED = re.compile(
    rb"""<meta[^>]*?charset\s*=\s*["']?\s*([A-Za-z0-9._:-]+)"""
    rb"""|<\?xml[^>]*?encoding\s*=\s*["']([A-Za-z0-9._:-]+)""",
    re.IGNORECASE,
)
_PRESCAN_BYTES = 4096


def codec_for(label: str | None) -> str | None:
    """The Python codec for a charset label, or None when the label is unknown or refused."""
    if not label:
        return None
    name = label.strip().strip("\"'").lower()
    if not name or name in _REFUSED:
        return None
    name = _WEB_ALIASES.get(name, name)
    try:
        info = codecs.lookup(name)
    except LookupError:
        return None
    return info.name


def declared_charset(body: bytes) -> str | None:
    """The charset a document declares in its first bytes, if any (meta or XML declaration)."""
    match = _DECLARED.search(body[:_PRESCAN_BYTES])
    if match is None:
        return None
    label = (match.group(1) or match.group(2)).decode("ascii", "replace")
    codec = codec_for(label)
    # a page that decoded as ASCII-compatible cannot really be UTF-16 (WHATWG: use UTF-8)
    if codec is not None and codec.startswith("utf-16"):
        return "utf-8"
    return codec


def decode(body: bytes, charset: str | None = None, *, sniff_markup: bool = False) -> str:
    """Decode ``body``: BOM > ``charset`` > declared charset (when ``sniff_markup``) > UTF-8.

    Undecodable bytes become U+FFFD; this never raises.
    """
    for bom, codec in _BOMS:
        if body.startswith(bom):
            return body[len(bom) :].decode(codec, "replace")
    chosen = codec_for(charset)
    if chosen is None and sniff_markup:
        chosen = declared_charset(body)
    try:
        return body.decode(chosen or "utf-8", "replace")
    except LookupError:  # a codec that exists but is not a text encoding
        return body.decode("utf-8", "replace")
