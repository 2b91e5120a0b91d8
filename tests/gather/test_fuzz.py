"""Property tests (hypothesis): the URL guard, robots.txt, the JSONL reader and HTML extraction.

Each property runs a bounded number of examples so the whole file stays within a few
seconds; ``derandomize`` keeps CI deterministic.
"""

from __future__ import annotations

import asyncio
import ipaddress
import json
import time
from pathlib import Path

import httpx2
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from assay.errors import FetchError
from assay.gather.extract import extract
from assay.gather.fetch.address import AllowList, blocked_kind, embedded_ipv4
from assay.gather.fetch.exchange import Deadline, check_scheme
from assay.gather.fetch.guard import AddressRefused, Guard, ResolutionFailed
from assay.gather.fetch.robots import RobotsAnswer, RobotsPolicy
from assay.store.jsonl import read_jsonl

FAST = settings(
    max_examples=150,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)

BLOCKED_V4 = ["127.0.0.0/8", "10.0.0.0/8", "169.254.0.0/16", "0.0.0.0/8", "192.168.0.0/16",
              "172.16.0.0/12", "100.64.0.0/10", "224.0.0.0/4"]  # fmt: skip


@st.composite
def ipv4_numbers(draw: st.DrawFn) -> int:
    if draw(st.booleans()):
        network = ipaddress.IPv4Network(draw(st.sampled_from(BLOCKED_V4)))
        return int(network.network_address) + draw(st.integers(0, network.num_addresses - 1))
    return draw(st.integers(0, 2**32 - 1))


def _part(value: int, base: str) -> str:
    return {"dec": str(value), "hex": hex(value), "oct": "0" + oct(value)[2:]}[base]


@st.composite
def ipv4_spellings(draw: st.DrawFn) -> str:
    number = draw(ipv4_numbers())
    octets = list(ipaddress.IPv4Address(number).packed)
    form = draw(st.sampled_from(["dotted", "one", "two", "three"]))
    base = st.sampled_from(["dec", "hex", "oct"])
    if form == "one":
        parts = [number]
    elif form == "two":
        parts = [octets[0], number & 0xFFFFFF]
    elif form == "three":
        parts = [octets[0], octets[1], number & 0xFFFF]
    else:
        parts = octets
    text = ".".join(_part(p, draw(base)) for p in parts)
    if draw(st.booleans()):
        text += "."
    if draw(st.booleans()):  # percent-encoded dots or digits
        text = text.replace(".", "%2E") if draw(st.booleans()) else text.replace("1", "%31")
    if draw(st.booleans()):  # full-width dots and digits: IDNA may map them to ASCII
        text = text.replace(".", "\u3002").translate(
            {ord(d): 0xFF10 + int(d) for d in "0123456789"}
        )
    return text


@st.composite
def ipv6_spellings(draw: st.DrawFn) -> str:
    v4 = ipaddress.IPv4Address(draw(ipv4_numbers()))
    form = draw(st.sampled_from(["loopback", "mapped", "mapped-hex", "nat64", "6to4", "random"]))
    if form == "loopback":
        addr = ipaddress.IPv6Address(1)
    elif form in ("mapped", "mapped-hex"):
        addr = ipaddress.IPv6Address(f"::ffff:{v4}")
    elif form == "nat64":
        addr = ipaddress.IPv6Address(f"64:ff9b::{v4}")
    elif form == "6to4":
        addr = ipaddress.IPv6Address((0x2002 << 112) | (int(v4) << 80))
    else:
        addr = ipaddress.IPv6Address(draw(st.integers(0, 2**128 - 1)))
    text = addr.exploded if draw(st.booleans()) else addr.compressed
    if form == "mapped" and draw(st.booleans()):
        text = f"::ffff:{v4}"
    if draw(st.booleans()):
        text = text.upper()
    return f"[{text}]"


names = st.sampled_from(["lab.test", "xn--bcher-kva.example", "bücher.example", "LOCALHOST",
                         "localhost.", "a.b.c.d.example", "evil.example"])  # fmt: skip


@st.composite
def hostile_urls(draw: st.DrawFn) -> str:
    host = draw(st.one_of(ipv4_spellings(), ipv6_spellings(), names))
    userinfo = draw(st.sampled_from(["", "user@", "user:pass@", "127.0.0.1@", "evil.example@"]))
    port = draw(st.sampled_from(["", ":80", ":8080", ":0", ":65535"]))
    scheme = draw(st.sampled_from(["http", "https", "HTTP"]))
    return f"{scheme}://{userinfo}{host}{port}/path"


async def _everything_is_loopback(host: str) -> list[str]:
    return ["127.0.0.1"]  # a hostile resolver: every name points at this machine


def _checked(url: str, allow: list[str]) -> list[ipaddress.IPv4Address | ipaddress.IPv6Address]:
    """What the guard lets a fetch of ``url`` connect to ([] when it refuses)."""
    try:
        check_scheme(url)
        host = httpx2.URL(url).raw_host.decode("ascii")
    except (FetchError, httpx2.InvalidURL, UnicodeError):
        return []
    guard = Guard(AllowList.parse(allow), _everything_is_loopback)
    try:
        return asyncio.run(guard.addresses(host))
    except (AddressRefused, ResolutionFailed):
        return []


@FAST
@given(hostile_urls())
def test_no_spelling_reaches_an_address_that_is_not_allow_listed(url: str) -> None:
    for addr in _checked(url, []):
        assert blocked_kind(addr) is None, f"{url} reached {addr}"


@FAST
@given(hostile_urls())
def test_an_allow_list_opens_only_what_it_names(url: str) -> None:
    ten = ipaddress.IPv4Network("10.0.0.0/8")
    for addr in _checked(url, ["10.0.0.0/8"]):
        carried = embedded_ipv4(addr)[1] if isinstance(addr, ipaddress.IPv6Address) else [addr]
        assert blocked_kind(addr) is None or any(v4 in ten for v4 in carried), url


@settings(max_examples=80, deadline=None, derandomize=True)
@given(st.binary(max_size=2000), st.sampled_from([200, 204, 404, 418, 429, 500, 503]))
def test_any_robots_txt_answers_quickly_and_never_raises(body: bytes, status: int) -> None:
    async def fetch(url: str, page: Deadline | None) -> RobotsAnswer:
        return RobotsAnswer(status, body)

    policy = RobotsPolicy(fetch, lambda host, delay: None, max_crawl_delay=30)
    started = time.monotonic()
    refusal = asyncio.run(policy.refusal("http://site.example/a/page?q=1"))
    assert refusal is None or isinstance(refusal, str)
    assert time.monotonic() - started < 1.0


robots_lines = st.lists(
    st.sampled_from(["User-agent: *", "User-agent: assay", "Disallow: /", "Disallow: /a",
                     "Allow: /a/page", "Crawl-delay: 5", "Crawl-delay: 1e9", "Sitemap: x",
                     "Disallow: /*?q=", "Disallow: $", "# comment", "", "\x00garbage"]),
    max_size=12,
)  # fmt: skip


@settings(max_examples=80, deadline=None, derandomize=True)
@given(robots_lines)
def test_structured_robots_files_never_raise(lines: list[str]) -> None:
    test_any_robots_txt_answers_quickly_and_never_raises.hypothesis.inner_test(  # type: ignore[attr-defined]
        "\n".join(lines).encode(), 200
    )


@settings(
    max_examples=100,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(
    st.lists(
        st.one_of(
            st.binary(max_size=60),
            st.dictionaries(st.text(max_size=5), st.text(max_size=10), max_size=3).map(
                lambda d: json.dumps(d).encode()
            ),
        ),
        max_size=12,
    )
)
def test_the_jsonl_reader_never_raises_and_accounts_for_every_line(
    tmp_path: Path, lines: list[bytes]
) -> None:
    path = tmp_path / "f.jsonl"  # rewritten by every example
    raw = b"\n".join(lines)
    path.write_bytes(raw)
    read = read_jsonl(path)
    nonblank = sum(1 for line in raw.split(b"\n") if line.strip())
    assert len(read.records) + len(read.bad_lines) + int(read.torn_final_line) == nonblank


html_fragments = st.sampled_from(
    ["<p>", "</p>", "<div>", "<script>", "</script>", "<style>", "<table><tr><td>", "<!--",
     "-->", "<![CDATA[", "<title>", "</title>", "&amp;", "&#0;", "&#x1b;", "\x1b]0;t\x07",
     "<a href='javascript:x'>", "<svg><foreignObject>", "<meta charset='utf-7'>", "text "]
)  # fmt: skip


@settings(max_examples=40, deadline=None, derandomize=True)
@given(
    st.lists(st.one_of(html_fragments, st.text(max_size=30)), max_size=40), st.binary(max_size=50)
)
def test_html_extraction_never_raises_never_hangs_and_strips_controls(
    parts: list[str], noise: bytes
) -> None:
    body = "".join(parts).encode("utf-8", "surrogatepass") + noise
    started = time.monotonic()
    found = extract(body, "text/html; charset=utf-8")
    assert time.monotonic() - started < 2.0
    assert not any(ord(c) < 32 and c not in "\n\t\f" for c in found.text)
    assert not any(0x7F <= ord(c) <= 0x9F for c in found.text)
