"""What a fetch may read: which media types, and how many bytes, raw and decoded.

Why decode here rather than let httpx2 do it: httpx2 inflates a whole chunk at once, so a
64 KiB chunk of a gzip bomb becomes 64 MiB in memory before anyone can count it. Here the
raw bytes are fed in small slices to a decompressor told how much output it may produce
(``max_length``), so at most ``max_bytes`` + one slice's output is ever held.

A body longer than the cap is cut at the cap (``truncated``), whether it came compressed or
not, so a large page is treated the same however the server chose to send it. A body that
inflates past the cap at a ratio no text reaches (``BOMB_RATIO``) is a decompression bomb
and is refused outright.
"""

from __future__ import annotations

import importlib
import zlib
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any, Protocol

TEXT_TYPES = frozenset({"application/json", "application/xhtml+xml"})
PDF_TYPE = "application/pdf"
BOMB_RATIO = 100
"""Decoded/encoded size above which an over-cap body is a bomb (HTML compresses ~5-20x)."""
_SLICE = 4096

try:
    _brotli: Any = importlib.import_module("brotli")
except ImportError:  # pragma: no cover - brotli is optional
    _brotli = None

ACCEPT_ENCODING = "gzip, deflate, br" if _brotli is not None else "gzip, deflate"


class LimitExceeded(Exception):
    """The body breaks a size rule in a way truncation cannot fix."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def parse_content_type(header: str | None) -> tuple[str, str | None]:
    """``text/HTML; charset="UTF-8"`` → ``("text/html", "UTF-8")``."""
    if not header:
        return "", None
    media, _, params = header.partition(";")
    charset = None
    for param in params.split(";"):
        name, _, value = param.partition("=")
        if name.strip().lower() == "charset":
            charset = value.strip().strip("\"'") or None
    return media.strip().lower(), charset


def type_refusal(media_type: str, *, accept_pdf: bool) -> str | None:
    """Why this media type is not fetched, or None when it is."""
    if (
        media_type.startswith("text/")
        or media_type in TEXT_TYPES
        or (media_type.startswith("application/") and media_type.endswith("+json"))
        or (accept_pdf and media_type == PDF_TYPE)
    ):
        return None
    if not media_type:
        return "no Content-Type given"
    return f"content type {media_type} is not fetched"


class _Decoder(Protocol):
    unconsumed: int  # input bytes of the last feed not yet used when the output was capped

    def feed(self, data: bytes, room: int) -> bytes:
        """Decode ``data``, producing at most ``room + 1`` bytes (one more says "over")."""


class _Identity:
    unconsumed = 0

    def feed(self, data: bytes, room: int) -> bytes:
        return data[: room + 1]


class _Zlib:
    """gzip (``wbits=31``) or deflate (zlib-wrapped, or raw as some servers send it)."""

    def __init__(self, wbits: int) -> None:
        self._wbits = wbits
        self._inner = zlib.decompressobj(wbits)
        self._started = False
        self.unconsumed = 0

    def feed(self, data: bytes, room: int) -> bytes:
        try:
            out = self._inner.decompress(data, room + 1)
        except zlib.error:
            if self._started or self._wbits != zlib.MAX_WBITS:
                raise
            self._wbits = -zlib.MAX_WBITS
            self._inner = zlib.decompressobj(self._wbits)
            out = self._inner.decompress(data, room + 1)
        self._started = True
        self.unconsumed = len(self._inner.unconsumed_tail)
        return out


class _Brotli:
    unconsumed = 0  # not reported by brotli; slices are small enough for the ratio test

    def __init__(self) -> None:
        self._inner = _brotli.Decompressor()

    def feed(self, data: bytes, room: int) -> bytes:
        out: bytes = self._inner.process(data, output_buffer_limit=room + 1)
        return out


def decoder_for(content_encoding: str | None) -> _Decoder:
    """The decoder for a Content-Encoding header; raises LimitExceeded for unknown ones."""
    encoding = (content_encoding or "identity").strip().lower()
    if encoding in ("", "identity"):
        return _Identity()
    if encoding in ("gzip", "x-gzip"):
        return _Zlib(16 + zlib.MAX_WBITS)
    if encoding == "deflate":
        return _Zlib(zlib.MAX_WBITS)
    if encoding == "br" and _brotli is not None:
        return _Brotli()
    raise LimitExceeded(f"unsupported Content-Encoding {encoding}")


@dataclass(frozen=True)
class Body:
    data: bytes
    truncated: bool


async def read_capped(
    chunks: AsyncIterator[bytes], content_encoding: str | None, max_bytes: int
) -> Body:
    """Read raw chunks, decode them, and stop at ``max_bytes`` raw or decoded.

    Raises LimitExceeded for a decompression bomb or an undecodable body. The caller closes
    the response, which drops the connection instead of draining what was not read.
    """
    decoder = decoder_for(content_encoding)
    compressed = not isinstance(decoder, _Identity)
    out = bytearray()
    raw = 0
    async for chunk in chunks:
        for start in range(0, len(chunk), _SLICE):
            if raw >= max_bytes:  # more arrives after the cap: the source is longer
                return Body(bytes(out), truncated=True)
            piece = chunk[start : start + _SLICE][: max_bytes - raw]
            raw += len(piece)
            room = max_bytes - len(out)
            try:
                decoded = decoder.feed(piece, room)
            except Exception as exc:  # zlib.error, brotli.error: no common base
                raise LimitExceeded(f"body does not decode as {content_encoding}: {exc}") from None
            if len(decoded) > room:
                used = raw - decoder.unconsumed
                if compressed and (len(out) + len(decoded)) > BOMB_RATIO * used:
                    raise LimitExceeded(
                        f"decompressed size exceeds {max_bytes} bytes "
                        f"(inflates more than {BOMB_RATIO}:1, a decompression bomb)"
                    )
                out += decoded[:room]
                return Body(bytes(out), truncated=True)
            out += decoded
    return Body(bytes(out), truncated=False)
