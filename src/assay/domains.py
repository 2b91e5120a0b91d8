"""Which domains a run may use: ``--include-domain`` / ``--exclude-domain``.

An entry names a domain and every host under it, on label boundaries: ``example.com``
covers ``example.com``, ``www.example.com`` and ``a.b.example.com``, never
``notexample.com``. Entries are read the way a person writes them (``https://www.BBC.co.uk/
news``, ``*.example.com``, ``.example.com``) and kept as canonical host names
(lower case, IDNA). A leading ``www.`` is the web host of its registrable domain
(``gather.urls.registrable_domain``), so ``www.example.com`` means ``example.com``;
any other subdomain (``forum.example.com``) means just that part of the site. An IP
address matches itself only.

Exclusion wins: a host both included and excluded is excluded. With an include list,
only hosts under one of its entries are used. ``DomainRule.refusal`` is asked by the
fetcher for every hop of every fetch (the URL, each redirect, a cached page's hops) and
by the search session for every result, so an excluded domain is never read nor offered.
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Iterable
from dataclasses import dataclass
from urllib.parse import urlsplit

from assay.urls import canonical_host, registrable_domain

_LABEL = re.compile(r"(?!-)[a-z0-9_-]{1,63}(?<!-)")


class BadDomain(ValueError):
    """An entry that is not a domain name or an IP address."""


def parse_domain(entry: str) -> str:
    """The canonical domain an entry names (see the module docstring); BadDomain if none."""
    text = host_of(entry) if "://" in entry else entry.strip().split("/", 1)[0]
    text = text.removeprefix("*.").removeprefix(".").rstrip(".").strip("[]")
    try:
        return str(ipaddress.ip_address(text))
    except ValueError:
        pass
    host = text.rsplit(":", 1)[0] if text.count(":") == 1 else text  # a port is not a domain
    name = canonical_host(host)
    if len(name) > 253 or not all(_LABEL.fullmatch(label) for label in name.split(".")):
        raise BadDomain(f"{entry!r} is not a domain name (for example example.com)")
    if name.startswith("www.") and registrable_domain(name) != name:
        name = name[4:]  # the web host of its site
    return name


def host_of(url: str) -> str:
    try:
        host = urlsplit(url.strip()).hostname or ""
    except ValueError:
        return ""
    return canonical_host(host)


def covers(domain: str, host: str) -> bool:
    """Whether ``host`` is ``domain`` or under it, on a label boundary."""
    return host == domain or host.endswith("." + domain)


@dataclass(frozen=True)
class DomainRule:
    """The include and exclude lists of a run, as canonical domains."""

    include: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()

    @classmethod
    def parse(cls, include: Iterable[str] = (), exclude: Iterable[str] = ()) -> DomainRule:
        """The rule from user entries; BadDomain for an entry that is not a domain."""
        return cls(_unique(map(parse_domain, include)), _unique(map(parse_domain, exclude)))

    def __bool__(self) -> bool:
        return bool(self.include or self.exclude)

    def refusal(self, url: str) -> str | None:
        """Why ``url`` may not be used, or None when it may."""
        if not self:
            return None
        host = host_of(url)
        for domain in self.exclude:
            if covers(domain, host):
                return f"domain {host} is excluded (--exclude-domain {domain})"
        if self.include and not any(covers(domain, host) for domain in self.include):
            return f"domain {host} is not among --include-domain {', '.join(self.include)}"
        return None


def _unique(domains: Iterable[str]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(domains))
