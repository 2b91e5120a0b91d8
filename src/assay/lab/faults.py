"""The lab's misbehaving responses: stateful error counters, a huge page, a gzip bomb.

Nothing large is ever built in memory: the huge page is streamed from one 64 KiB chunk,
and the gzip bomb is streamed from three cached pieces (a header block, one deflate block
that inflates to 1 MiB of zeros, repeated, and the end) with a trailer whose CRC-32 is
derived arithmetically, so the body is a valid gzip stream that inflates to 10 GiB.
"""

from __future__ import annotations

import struct
import threading
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache

HUGE_BYTES = 20 * 1024 * 1024
BOMB_CHUNK = 1024 * 1024
BOMB_INFLATED = 10 * 1024 * BOMB_CHUNK  # 10 GiB
_STREAM_CHUNK = 64 * 1024
_CRC_POLY = 0xEDB88320


class FaultCounters:
    """How often each (client address, request target) has been seen, thread-safely.

    The key is the full request target, query included, so a test can get a fresh
    counter by adding any query string (``/fault/429?case=mine``).
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._seen: dict[tuple[str, str], int] = {}

    def bump(self, client: str, target: str) -> int:
        """Count one more request and return how many came before this one."""
        with self._lock:
            before = self._seen.get((client, target), 0)
            self._seen[(client, target)] = before + 1
            return before

    def reset(self) -> None:
        with self._lock:
            self._seen.clear()


def huge_page_chunks(total: int = HUGE_BYTES) -> Iterator[bytes]:
    """Exactly ``total`` bytes of HTML, in 64 KiB chunks."""
    head = b"<!doctype html><html><head><title>Huge page</title></head><body><main>\n"
    yield head
    sent = len(head)
    line = b"<p>This page goes on and on so that a fetcher has to stop reading it.</p>\n"
    chunk = line * (_STREAM_CHUNK // len(line))
    while sent < total:
        piece = chunk[: total - sent]
        yield piece
        sent += len(piece)


@dataclass(frozen=True)
class GzipBomb:
    """A gzip stream that inflates to ``inflated`` zero bytes: head + block × n + tail."""

    head: bytes
    block: bytes
    repeats: int
    tail: bytes
    inflated: int

    @property
    def length(self) -> int:
        return len(self.head) + len(self.block) * self.repeats + len(self.tail)

    def chunks(self) -> Iterator[bytes]:
        yield self.head
        group = self.block * max(1, _STREAM_CHUNK // len(self.block))
        per_group = len(group) // len(self.block)
        left = self.repeats
        while left > 0:
            take = min(per_group, left)
            yield group if take == per_group else self.block * take
            left -= take
        yield self.tail


@cache
def gzip_bomb(inflated: int = BOMB_INFLATED) -> GzipBomb:
    """Build (once per size) the bomb for ``inflated`` bytes, a multiple of 1 MiB."""
    if inflated < 2 * BOMB_CHUNK or inflated % BOMB_CHUNK:
        raise ValueError("the inflated size must be a multiple of 1 MiB, at least 2 MiB")
    zeros = bytes(BOMB_CHUNK)
    compressor = zlib.compressobj(9, zlib.DEFLATED, 31)
    head = compressor.compress(zeros) + compressor.flush(zlib.Z_FULL_FLUSH)
    block = compressor.compress(zeros) + compressor.flush(zlib.Z_FULL_FLUSH)
    end = compressor.flush(zlib.Z_FINISH)[:-8]  # the final empty block, without the trailer
    crc = _crc32_of_repeats(zlib.crc32(zeros), BOMB_CHUNK, inflated // BOMB_CHUNK)
    trailer = struct.pack("<II", crc, inflated & 0xFFFFFFFF)
    return GzipBomb(head, block, inflated // BOMB_CHUNK - 1, end + trailer, inflated)


def _crc32_of_repeats(crc: int, length: int, times: int) -> int:
    """CRC-32 of a piece (CRC ``crc``, ``length`` bytes) repeated ``times`` times."""
    total: int | None = None
    total_length = 0
    while times:
        if times & 1:
            total = crc if total is None else crc32_combine(total, crc, length)
            total_length += length
        times >>= 1
        if times:
            crc = crc32_combine(crc, crc, length)
            length *= 2
    return total or 0


def crc32_combine(crc1: int, crc2: int, length2: int) -> int:
    """CRC-32 of A+B from CRC(A), CRC(B) and len(B) (zlib's crc32_combine, in GF(2))."""
    if length2 <= 0:
        return crc1
    odd = [_CRC_POLY] + [1 << n for n in range(31)]
    even = _gf2_square(odd)
    odd = _gf2_square(even)
    while True:
        even = _gf2_square(odd)
        if length2 & 1:
            crc1 = _gf2_times(even, crc1)
        length2 >>= 1
        if not length2:
            break
        odd = _gf2_square(even)
        if length2 & 1:
            crc1 = _gf2_times(odd, crc1)
        length2 >>= 1
        if not length2:
            break
    return crc1 ^ crc2


def _gf2_times(matrix: list[int], vector: int) -> int:
    total, row = 0, 0
    while vector:
        if vector & 1:
            total ^= matrix[row]
        vector >>= 1
        row += 1
    return total


def _gf2_square(matrix: list[int]) -> list[int]:
    return [_gf2_times(matrix, matrix[n]) for n in range(32)]
