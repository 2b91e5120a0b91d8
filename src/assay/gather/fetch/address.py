"""Which IP addresses a fetch may reach, and the allow-list that makes exceptions.

Why our own classifier: ``ipaddress``'s ``is_global``/``is_private`` change between Python
patch releases and miss embedded forms (``::127.0.0.1`` is "global" on 3.11), so the
blocked ranges are listed here, explicitly, and every IPv6 form that carries an IPv4
address inside it (mapped, compatible, translated, 6to4, Teredo, NAT64) is judged by the
address it carries. Host spellings that ``inet_aton`` accepts (``2130706433``,
``0177.0.0.1``, ``0x7f.1``, ``127.1``) are parsed the way resolvers and browsers parse them,
so they are judged as the address they really name.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable
from dataclasses import dataclass

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
IPNetwork = ipaddress.IPv4Network | ipaddress.IPv6Network

_V4 = ipaddress.IPv4Network
_V6 = ipaddress.IPv6Network

# Most specific first: the first match names the reason.
_BLOCKED_V4: tuple[tuple[IPNetwork, str], ...] = (
    (_V4("0.0.0.0/32"), "unspecified"),
    (_V4("0.0.0.0/8"), "reserved"),
    (_V4("127.0.0.0/8"), "loopback"),
    (_V4("169.254.0.0/16"), "link-local"),
    (_V4("10.0.0.0/8"), "private"),
    (_V4("172.16.0.0/12"), "private"),
    (_V4("192.168.0.0/16"), "private"),
    (_V4("100.64.0.0/10"), "private"),  # carrier-grade NAT (shared address space)
    (_V4("192.0.0.0/24"), "reserved"),
    (_V4("192.0.2.0/24"), "reserved"),  # documentation
    (_V4("192.88.99.0/24"), "reserved"),  # 6to4 relay anycast
    (_V4("198.18.0.0/15"), "reserved"),  # benchmarking
    (_V4("198.51.100.0/24"), "reserved"),
    (_V4("203.0.113.0/24"), "reserved"),
    (_V4("224.0.0.0/4"), "multicast"),
    (_V4("240.0.0.0/4"), "reserved"),  # includes 255.255.255.255
)
_BLOCKED_V6: tuple[tuple[IPNetwork, str], ...] = (
    (_V6("::/128"), "unspecified"),
    (_V6("::1/128"), "loopback"),
    (_V6("64:ff9b:1::/48"), "private"),  # local-use NAT64
    (_V6("100::/64"), "reserved"),  # discard-only
    (_V6("2001:db8::/32"), "reserved"),  # documentation
    (_V6("2001:10::/28"), "reserved"),  # ORCHID
    (_V6("2001:20::/28"), "reserved"),  # ORCHIDv2
    (_V6("2001:2::/48"), "reserved"),  # benchmarking
    (_V6("3fff::/20"), "reserved"),  # documentation
    (_V6("fc00::/7"), "private"),  # unique local
    (_V6("fe80::/10"), "link-local"),
    (_V6("fec0::/10"), "private"),  # site-local (deprecated)
    (_V6("ff00::/8"), "multicast"),
    (_V6("::/8"), "reserved"),  # the rest of ::/8 after the embedded forms below
)
_MAPPED = _V6("::ffff:0:0/96")
_TRANSLATED = _V6("::ffff:0:0:0/96")
_COMPATIBLE = _V6("::/96")
_NAT64 = _V6("64:ff9b::/96")
_SIX_TO_FOUR = _V6("2002::/16")
_TEREDO = _V6("2001::/32")


def embedded_ipv4(addr: ipaddress.IPv6Address) -> tuple[str, list[ipaddress.IPv4Address]]:
    """The IPv4 addresses an IPv6 address carries, with the name of the form (or "")."""
    low32 = ipaddress.IPv4Address(int(addr) & 0xFFFFFFFF)
    if addr in _MAPPED:
        return "IPv4-mapped", [low32]
    if addr in _TRANSLATED:
        return "IPv4-translated", [low32]
    if addr in _COMPATIBLE and int(addr) > 1:
        return "IPv4-compatible", [low32]
    if addr in _NAT64:
        return "NAT64", [low32]
    if addr in _SIX_TO_FOUR:
        return "6to4", [ipaddress.IPv4Address((int(addr) >> 80) & 0xFFFFFFFF)]
    if addr in _TEREDO:
        server = ipaddress.IPv4Address((int(addr) >> 64) & 0xFFFFFFFF)
        client = ipaddress.IPv4Address(~int(addr) & 0xFFFFFFFF)
        return "Teredo", [server, client]
    return "", []


def blocked_kind(addr: IPAddress) -> str | None:
    """Why ``addr`` must not be fetched from ("loopback", "private", ...), or None if public.

    An embedded IPv4 address is judged first, so ``::ffff:127.0.0.1`` is "loopback via
    IPv4-mapped 127.0.0.1", not merely "reserved".
    """
    if isinstance(addr, ipaddress.IPv6Address):
        if addr.scope_id:
            addr = ipaddress.IPv6Address(str(addr).split("%", 1)[0])
        form, inner = embedded_ipv4(addr)
        for v4 in inner:
            kind = blocked_kind(v4)
            if kind:
                return f"{kind} via {form} {v4}"
        if form in ("IPv4-mapped", "IPv4-translated", "NAT64"):
            return None  # a way to reach a public IPv4 address
        table = _BLOCKED_V6
    else:
        table = _BLOCKED_V4
    for network, kind in table:
        if addr in network:
            return kind
    return None


def _legacy_part(part: str) -> int:
    """One dotted part as inet_aton reads it: 0x… hex, 0… octal, else decimal."""
    if part[:2].lower() == "0x":
        return int(part[2:] or "0", 16)
    if len(part) > 1 and part.startswith("0"):
        return int(part[1:], 8)
    return int(part, 10)


def _looks_numeric(part: str) -> bool:
    if part[:2].lower() == "0x":
        return all(c in "0123456789abcdefABCDEF" for c in part[2:])
    return part.isdigit()


def parse_host_address(host: str) -> IPAddress | None:
    """The IP address a URL host names literally, in any spelling, or None for a name.

    Raises ValueError for a host that is numeric but names no address (``256.1.1.1.1``,
    ``99999999999``): a resolver might still make something of it, so it is refused.
    """
    bare = host.strip().rstrip(".")
    if bare.startswith("[") and bare.endswith("]"):
        bare = bare[1:-1]
    if ":" in bare:
        return ipaddress.IPv6Address(bare.split("%", 1)[0])
    parts = bare.split(".")
    if not parts or not all(p and _looks_numeric(p) for p in parts):
        return None
    invalid = ValueError(f"{host!r} is not a valid IPv4 address")
    if len(parts) > 4:
        raise invalid
    try:
        values = [_legacy_part(p) for p in parts]
    except ValueError:
        raise invalid from None
    if any(v > 255 for v in values[:-1]) or values[-1] >= 256 ** (5 - len(values)):
        raise invalid
    number = values[-1]
    for index, value in enumerate(values[:-1]):
        number += value << (8 * (3 - index))
    return ipaddress.IPv4Address(number)


def normalise_host(host: str) -> str:
    """Lower-case, no trailing dot, no IPv6 brackets: the form allow-list names are kept in."""
    bare = host.strip().lower().rstrip(".")
    if bare.startswith("[") and bare.endswith("]"):
        bare = bare[1:-1]
    return bare


@dataclass(frozen=True)
class AllowList:
    """Hosts and networks the guard lets through even though they are not public.

    A name matches itself; ``*.lab.test`` or ``.lab.test`` also match every subdomain. An
    IP or CIDR matches the addresses in it, and the IPv4 address embedded in an IPv6 form.
    """

    names: frozenset[str]
    suffixes: tuple[str, ...]
    networks: tuple[IPNetwork, ...]

    @classmethod
    def parse(cls, entries: Iterable[str]) -> AllowList:
        names: set[str] = set()
        suffixes: list[str] = []
        networks: list[IPNetwork] = []
        for raw in entries:
            entry = normalise_host(raw)
            if not entry:
                continue
            try:
                networks.append(ipaddress.ip_network(entry, strict=False))
                continue
            except ValueError:
                pass
            if entry.startswith(("*.", ".")):
                suffixes.append("." + entry.lstrip("*."))
            else:
                names.add(entry)
        return cls(frozenset(names), tuple(suffixes), tuple(networks))

    def allows_name(self, host: str) -> bool:
        name = normalise_host(host)
        return name in self.names or name.endswith(self.suffixes)

    def allows_address(self, addr: IPAddress) -> bool:
        candidates: list[IPAddress] = [addr]
        if isinstance(addr, ipaddress.IPv6Address):
            candidates.extend(embedded_ipv4(addr)[1])
        return any(
            a in net for a in candidates for net in self.networks if a.version == net.version
        )


def refusal(addr: IPAddress, allow: AllowList) -> str | None:
    """The reason ``addr`` may not be connected to, or None when it may."""
    kind = blocked_kind(addr)
    if kind is None or allow.allows_address(addr):
        return None
    return f"address {addr} is {kind} and not allow-listed"
