"""Media types, the byte cap (raw and decoded) and the retry arithmetic, without a network."""

from __future__ import annotations

import gzip
import random
import zlib
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime

import pytest

from assay.gather.fetch.limits import (
    BOMB_RATIO,
    LimitExceeded,
    parse_content_type,
    read_capped,
    type_refusal,
)
from assay.gather.fetch.retry import backoff, parse_retry_after
from assay.lab.faults import gzip_bomb

pytestmark = pytest.mark.paced  # what these tests prove includes the real pacing

CAP = 100_000


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


async def _chunks(data: bytes, size: int = 65_536) -> AsyncIterator[bytes]:
    for start in range(0, len(data), size):
        yield data[start : start + size]


def _prose(length: int) -> bytes:
    """Text that compresses like real prose (a few times, not a hundred)."""
    rng = random.Random(7)
    words = [
        "".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(rng.randint(2, 9)))
        for _ in range(5000)
    ]
    out = " ".join(rng.choice(words) for _ in range(length // 4)).encode()
    return out[:length]


@pytest.mark.parametrize(
    ("header", "media", "charset"),
    [
        ("text/HTML; charset=UTF-8", "text/html", "UTF-8"),
        ('text/plain;charset="iso-8859-1"', "text/plain", "iso-8859-1"),
        ("application/json", "application/json", None),
        (None, "", None),
    ],
)
def test_parse_content_type(header: str | None, media: str, charset: str | None) -> None:
    assert parse_content_type(header) == (media, charset)


@pytest.mark.parametrize(
    "media",
    ["text/html", "text/plain", "text/csv", "application/json", "application/ld+json",
     "application/xhtml+xml"],
)  # fmt: skip
def test_text_types_are_fetched(media: str) -> None:
    assert type_refusal(media, accept_pdf=False) is None


def test_other_types_are_refused() -> None:
    assert type_refusal("application/pdf", accept_pdf=True) is None
    assert type_refusal("application/pdf", accept_pdf=False) == (
        "content type application/pdf is not fetched"
    )
    assert type_refusal("application/octet-stream", accept_pdf=True) is not None
    assert type_refusal("image/png", accept_pdf=True) is not None
    assert type_refusal("", accept_pdf=True) == "no Content-Type given"


@pytest.mark.anyio
async def test_plain_body_under_at_and_over_the_cap() -> None:
    under = await read_capped(_chunks(b"x" * 10), None, CAP)
    assert (under.data, under.truncated) == (b"x" * 10, False)
    exact = await read_capped(_chunks(b"x" * CAP), "identity", CAP)
    assert (len(exact.data), exact.truncated) == (CAP, False)
    over = await read_capped(_chunks(b"x" * (CAP * 5)), None, CAP)
    assert (len(over.data), over.truncated) == (CAP, True)


@pytest.mark.anyio
@pytest.mark.parametrize(
    ("encoding", "encode"),
    [
        ("gzip", gzip.compress),
        ("deflate", zlib.compress),  # zlib-wrapped, as the RFC says
        ("deflate", lambda d: zlib.compress(d)[2:-4]),  # raw deflate, as some servers send
    ],
)
async def test_compressed_bodies_decode(encoding: str, encode: object) -> None:
    text = _prose(50_000)
    body = await read_capped(_chunks(encode(text), 1000), encoding, CAP)  # type: ignore[operator]
    assert (body.data, body.truncated) == (text, False)


@pytest.mark.anyio
async def test_brotli_decodes_when_installed() -> None:
    brotli = pytest.importorskip("brotli")
    text = _prose(50_000)
    body = await read_capped(_chunks(brotli.compress(text)), "br", CAP)
    assert body.data == text


@pytest.mark.anyio
async def test_a_large_compressed_page_is_cut_like_a_plain_one() -> None:
    text = _prose(CAP * 4)
    compressed = gzip.compress(text)
    assert len(text) / len(compressed) < BOMB_RATIO
    body = await read_capped(_chunks(compressed), "gzip", CAP)
    assert (body.data, body.truncated) == (text[:CAP], True)


@pytest.mark.anyio
async def test_a_gzip_bomb_is_refused_without_inflating_it() -> None:
    bomb = gzip_bomb(64 * 1024 * 1024)

    async def chunks() -> AsyncIterator[bytes]:
        for chunk in bomb.chunks():
            yield chunk

    with pytest.raises(LimitExceeded, match=f"decompressed size exceeds {CAP} bytes"):
        await read_capped(chunks(), "gzip", CAP)


@pytest.mark.anyio
async def test_a_brotli_bomb_is_refused() -> None:
    brotli = pytest.importorskip("brotli")
    bomb = brotli.compress(bytes(8 * 1024 * 1024), quality=5)
    with pytest.raises(LimitExceeded, match="decompressed size exceeds"):
        await read_capped(_chunks(bomb), "br", CAP)


@pytest.mark.anyio
async def test_undecodable_and_unknown_encodings_are_refused() -> None:
    with pytest.raises(LimitExceeded, match="does not decode as gzip"):
        await read_capped(_chunks(b"this is not gzip at all"), "gzip", CAP)
    with pytest.raises(LimitExceeded, match="unsupported Content-Encoding compress"):
        await read_capped(_chunks(b"abc"), "compress", CAP)


def test_retry_after_seconds_and_dates() -> None:
    now = datetime(2026, 1, 1, 12, 0, 0, tzinfo=UTC)
    assert parse_retry_after("1") == 1.0
    assert parse_retry_after(" 120 ") == 120.0
    later = format_datetime(now + timedelta(seconds=90), usegmt=True)
    assert parse_retry_after(later, now=now) == 90.0
    earlier = format_datetime(now - timedelta(seconds=90), usegmt=True)
    assert parse_retry_after(earlier, now=now) == 0.0
    assert parse_retry_after("soon") is None
    assert parse_retry_after(None) is None


def test_backoff_grows_with_jitter() -> None:
    rng = random.Random(1)
    for attempt in range(4):
        step = 0.5 * 2**attempt
        delays = {backoff(attempt, rng=rng) for _ in range(20)}
        assert all(step <= d <= step * 1.5 for d in delays)
        assert len(delays) > 1  # jittered, not in lock-step
