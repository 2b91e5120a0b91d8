"""URL identity: one canonical spelling per page, and the domain that owns a host.

``canonical_url`` is for deciding that two URLs name the same page (search results from
several queries or providers, sources already in the ledger). It lower-cases the scheme
and host, writes the host in IDNA (``xn--``) form, drops a default port, the fragment and
tracking parameters, removes ``.``/``..`` path segments, writes ``/`` for an empty path,
and normalises percent-encoding (unreserved characters decoded, other escapes in upper
case, characters that must be escaped escaped). Remaining query parameters keep their
order and their spelling.

``registrable_domain`` is the part of a host a single party registers (``bbc.co.uk`` for
``news.bbc.co.uk``, ``foo.org.es`` for ``www.foo.org.es``), found with the Public Suffix
List, ICANN and private sections both (so ``alice.github.io`` is its own domain). The list
is the copy the ``publicsuffixlist`` package ships: it is read from disk, never downloaded,
and is as current as the installed package.
"""

from __future__ import annotations

import functools
import ipaddress
import re
from urllib.parse import urlsplit, urlunsplit

from publicsuffixlist import PublicSuffixList

DEFAULT_PORTS = {"http": 80, "https": 443}


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


TRACKING_PARAMETERS = _words(
    """
    gclid gclsrc dclid gbraid wbraid fbclid msclkid yclid twclid ttclid li_fat_id igshid
    mc_cid mc_eid _hsenc _hsmkt __hstc __hssc __hsfp hsctatracking mkt_tok _ga _gl
    oly_anon_id oly_enc_id vero_id vero_conv wickedid rb_clickid s_kwcid ef_id srsltid
    ref ref_src ref_url
    """
)
TRACKING_PREFIXES = ("utm_",)

_UNRESERVED = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
_PATH_SAFE = _UNRESERVED | frozenset("!$&'()*+,;=:@/")
_QUERY_SAFE = _PATH_SAFE | frozenset("?")
_ESCAPE = re.compile(r"%([0-9A-Fa-f]{2})")


def canonical_url(url: str) -> str:
    """The canonical spelling of an absolute URL; anything without a host comes back trimmed."""
    text = url.strip()
    try:
        parts = urlsplit(text)
        port = parts.port
    except ValueError:
        return text
    if not parts.netloc or not parts.hostname:
        return text
    scheme = parts.scheme.lower()
    host = _canonical_host(parts.hostname)
    if ":" in host:
        host = f"[{host}]"
    if port is not None and port != DEFAULT_PORTS.get(scheme):
        host = f"{host}:{port}"
    userinfo = parts.netloc.rpartition("@")[0]
    netloc = f"{userinfo}@{host}" if userinfo else host
    path = _remove_dot_segments(_normalise_escapes(parts.path, _PATH_SAFE)) or "/"
    query = "&".join(
        _normalise_escapes(piece, _QUERY_SAFE)
        for piece in parts.query.split("&")
        if piece and not is_tracking_parameter(piece.partition("=")[0])
    )
    return urlunsplit((scheme, netloc, path, query, ""))


def is_tracking_parameter(name: str) -> bool:
    """True for query parameter names that only say where a click came from."""
    key = _ESCAPE.sub(lambda m: chr(int(m.group(1), 16)), name).strip().lower()
    return key in TRACKING_PARAMETERS or key.startswith(TRACKING_PREFIXES)


def registrable_domain(host: str) -> str:
    """The registrable part of ``host`` (``bbc.co.uk`` for ``news.bbc.co.uk``).

    IP addresses and single-label hosts come back as they are (lower-cased); a host that
    is itself a public suffix comes back whole.
    """
    name = _canonical_host(host.strip().strip("[]"))
    if not name or _is_ip(name):
        return name
    return _suffix_list().privatesuffix(name) or name


def canonical_host(host: str) -> str:
    """``host`` as compared: lower case, IDNA (``xn--``) form, no trailing dot or brackets."""
    return _canonical_host(host.strip().strip("[]"))


@functools.cache
def _suffix_list() -> PublicSuffixList:
    return PublicSuffixList()  # the packaged list file; ~70 ms to parse, once


def _canonical_host(host: str) -> str:
    name = host.strip().rstrip(".").lower()
    if not name or _is_ip(name) or name.isascii():
        return name
    try:
        import idna

        return str(idna.encode(name, uts46=True).decode("ascii"))
    except (ImportError, UnicodeError, ValueError):
        pass
    try:
        return name.encode("idna").decode("ascii")
    except UnicodeError:
        return name


def _is_ip(name: str) -> bool:
    try:
        ipaddress.ip_address(name)
    except ValueError:
        return False
    return True


def _normalise_escapes(text: str, safe: frozenset[str]) -> str:
    """Decode escaped unreserved characters, upper-case other escapes, escape the unsafe."""
    out: list[str] = []
    i = 0
    while i < len(text):
        char = text[i]
        match = _ESCAPE.match(text, i) if char == "%" else None
        if match:
            decoded = chr(int(match.group(1), 16))
            out.append(decoded if decoded in _UNRESERVED else "%" + match.group(1).upper())
            i += 3
            continue
        if char in safe:
            out.append(char)
        else:
            out.extend(f"%{byte:02X}" for byte in char.encode("utf-8"))
        i += 1
    return "".join(out)


def _remove_dot_segments(path: str) -> str:
    """RFC 3986 section 5.2.4: resolve ``.`` and ``..`` segments."""
    if "." not in path:
        return path
    output: list[str] = []
    segments = path.split("/")
    for index, segment in enumerate(segments):
        last = index == len(segments) - 1
        if segment == ".":
            if last:
                output.append("")
        elif segment == "..":
            if len(output) > 1:
                output.pop()
            if last:
                output.append("")
        else:
            output.append(segment)
    result = "/".join(output)
    if path.startswith("/") and not result.startswith("/"):
        result = "/" + result
    return result
