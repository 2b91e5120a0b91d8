"""The address classifier, the allow-list and the guard's resolve-once rule (no network)."""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Sequence

import pytest

from assay.gather.fetch.address import AllowList, blocked_kind, parse_host_address, refusal
from assay.gather.fetch.guard import AddressRefused, Guard, ResolutionFailed

pytestmark = pytest.mark.paced  # what these tests prove includes the real pacing


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.mark.parametrize(
    ("host", "expected"),
    [
        ("127.0.0.1", "127.0.0.1"),
        ("2130706433", "127.0.0.1"),  # one decimal number
        ("0177.0.0.1", "127.0.0.1"),  # octal first part
        ("0x7f.1", "127.0.0.1"),  # hex, two parts
        ("0x7F.0.0.1", "127.0.0.1"),
        ("127.1", "127.0.0.1"),  # short form
        ("127.0.1", "127.0.0.1"),
        ("0x7f000001", "127.0.0.1"),
        ("017700000001", "127.0.0.1"),  # one octal number
        ("127.0.0.1.", "127.0.0.1"),  # trailing dot
        ("0", "0.0.0.0"),
        ("[::1]", "::1"),
        ("::ffff:127.0.0.1", "::ffff:7f00:1"),
        ("[fe80::1%25eth0]", "fe80::1"),
    ],
)
def test_parse_host_address_reads_every_spelling(host: str, expected: str) -> None:
    assert parse_host_address(host) == ipaddress.ip_address(expected)


@pytest.mark.parametrize("host", ["example.com", "news.example", "localhost", "1.example", "a.1"])
def test_parse_host_address_leaves_names_alone(host: str) -> None:
    assert parse_host_address(host) is None


@pytest.mark.parametrize(
    "host", ["256.1.1.1", "1.2.3.4.5", "4294967296", "08.1.1.1", "0x1.0x100.1"]
)
def test_parse_host_address_refuses_numeric_nonsense(host: str) -> None:
    with pytest.raises(ValueError, match="not a valid IPv4 address"):
        parse_host_address(host)


@pytest.mark.parametrize(
    ("address", "kind"),
    [
        ("127.0.0.1", "loopback"),
        ("127.255.0.9", "loopback"),
        ("10.1.2.3", "private"),
        ("172.16.0.1", "private"),
        ("172.31.255.255", "private"),
        ("192.168.1.1", "private"),
        ("100.64.0.1", "private"),
        ("169.254.169.254", "link-local"),
        ("224.0.0.1", "multicast"),
        ("239.255.255.250", "multicast"),
        ("240.0.0.1", "reserved"),
        ("255.255.255.255", "reserved"),
        ("0.0.0.0", "unspecified"),
        ("0.1.2.3", "reserved"),
        ("192.0.2.1", "reserved"),
        ("198.18.0.1", "reserved"),
        ("::", "unspecified"),
        ("::1", "loopback"),
        ("fe80::1", "link-local"),
        ("fe80::1%eth0", "link-local"),
        ("fc00::1", "private"),
        ("fd12:3456::1", "private"),
        ("fec0::1", "private"),
        ("ff02::1", "multicast"),
        ("2001:db8::1", "reserved"),
        ("100::1", "reserved"),
        ("::ffff:127.0.0.1", "loopback via IPv4-mapped 127.0.0.1"),
        ("::ffff:7f00:1", "loopback via IPv4-mapped 127.0.0.1"),
        ("::ffff:169.254.169.254", "link-local via IPv4-mapped 169.254.169.254"),
        ("::ffff:0:10.0.0.1", "private via IPv4-translated 10.0.0.1"),
        ("::127.0.0.1", "loopback via IPv4-compatible 127.0.0.1"),
        ("::8.8.8.8", "reserved"),  # IPv4-compatible is deprecated even for public IPv4
        ("64:ff9b::7f00:1", "loopback via NAT64 127.0.0.1"),
        ("64:ff9b::a9fe:a9fe", "link-local via NAT64 169.254.169.254"),
        ("64:ff9b:1::1", "private"),
        ("2002:7f00:1::", "loopback via 6to4 127.0.0.1"),
        ("2002:c0a8:101::1", "private via 6to4 192.168.1.1"),
        # Teredo: server 65.54.227.120, client 127.0.0.1 stored inverted (80ff:fffe)
        ("2001:0:4136:e378:8000:63bf:80ff:fffe", "loopback via Teredo 127.0.0.1"),
    ],
)
def test_blocked_kind_names_the_range(address: str, kind: str) -> None:
    assert blocked_kind(ipaddress.ip_address(address)) == kind


@pytest.mark.parametrize(
    "address",
    [
        "8.8.8.8",
        "93.184.216.34",
        "1.1.1.1",
        "2606:4700:4700::1111",
        "::ffff:8.8.8.8",  # a public IPv4 address written the IPv6 way
        "64:ff9b::808:808",  # NAT64 of 8.8.8.8
        "2002:808:808::1",  # 6to4 of 8.8.8.8
    ],
)
def test_public_addresses_pass(address: str) -> None:
    assert blocked_kind(ipaddress.ip_address(address)) is None


def test_allow_list_names_networks_and_subdomains() -> None:
    allow = AllowList.parse(["127.0.0.0/8", "LOCALHOST.", "*.lab.test", "::1", " "])
    assert allow.allows_address(ipaddress.ip_address("127.0.0.5"))
    assert allow.allows_address(ipaddress.ip_address("::1"))
    assert allow.allows_address(ipaddress.ip_address("::ffff:127.0.0.1"))  # embedded form
    assert not allow.allows_address(ipaddress.ip_address("10.0.0.1"))
    assert allow.allows_name("localhost")
    assert allow.allows_name("a.b.lab.test")
    assert not allow.allows_name("lab.test.evil.example")
    assert not allow.allows_name("notlocalhost")


def test_refusal_reason_reads_as_a_sentence() -> None:
    allow = AllowList.parse(["127.0.0.2"])
    loopback = ipaddress.ip_address("127.0.0.1")
    assert refusal(loopback, allow) == "address 127.0.0.1 is loopback and not allow-listed"
    assert refusal(ipaddress.ip_address("127.0.0.2"), allow) is None
    assert refusal(ipaddress.ip_address("8.8.8.8"), allow) is None


def _resolver(answers: dict[str, Sequence[str]]) -> tuple[list[str], object]:
    asked: list[str] = []

    async def resolve(host: str) -> Sequence[str]:
        asked.append(host)
        if host not in answers:
            raise OSError("name not known")
        return answers[host]

    return asked, resolve


@pytest.mark.anyio
async def test_guard_resolves_once_and_checks_every_answer() -> None:
    asked, resolve = _resolver(
        {"news.example": ["127.0.0.2"], "rebind.example": ["127.0.0.2", "127.0.0.1"]}
    )
    guard = Guard(AllowList.parse(["127.0.0.2"]), resolve)  # type: ignore[arg-type]
    assert [str(a) for a in await guard.addresses("news.example")] == ["127.0.0.2"]
    assert asked == ["news.example"]
    with pytest.raises(AddressRefused, match=re.escape("address 127.0.0.1 is loopback")):
        await guard.addresses("rebind.example")  # one bad answer refuses the host
    with pytest.raises(ResolutionFailed, match=re.escape("could not resolve nowhere.example")):
        await guard.addresses("nowhere.example")


@pytest.mark.anyio
@pytest.mark.parametrize(
    "host", ["2130706433", "0177.0.0.1", "0x7f.1", "127.1", "[::ffff:127.0.0.1]", "169.254.169.254"]
)
async def test_guard_refuses_literal_spellings_without_resolving(host: str) -> None:
    asked, resolve = _resolver({})
    guard = Guard(AllowList.parse([]), resolve)  # type: ignore[arg-type]
    with pytest.raises(AddressRefused, match="not allow-listed"):
        await guard.addresses(host)
    assert asked == []


@pytest.mark.anyio
async def test_guard_lets_allow_listed_names_through() -> None:
    _, resolve = _resolver({"lab.test": ["127.0.0.9"], "evil.example": ["10.0.0.1"]})
    guard = Guard(AllowList.parse(["lab.test"]), resolve)  # type: ignore[arg-type]
    assert [str(a) for a in await guard.addresses("lab.test")] == ["127.0.0.9"]
    with pytest.raises(AddressRefused, match=re.escape("address 10.0.0.1 is private")):
        await guard.addresses("evil.example")
