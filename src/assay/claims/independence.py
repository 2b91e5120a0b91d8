"""Independence: which sources are really one origin.

Two sources share an origin when they have the same registrable domain, or when their
texts are near-duplicates (syndicated copies, mirrors): the overlap of their word 5-gram
shingles, measured against the smaller text, is at least ``NEAR_DUPLICATE``. Origins are
the connected groups of that relation, so twelve copies of one story count once.

A source's domain is always re-derived from the URL it was fetched from (its final URL
after redirects, else the URL asked for), never read from the ``domain`` field recorded in
sources.jsonl: a field no hash covers could be relabelled to invent an independent origin.
Lab and intranet hosts given as IP addresses are each their own origin.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from urllib.parse import urlsplit

from assay.claims.normalize import normalize_text
from assay.store.sources import SourceRecord
from assay.urls import registrable_domain

NEAR_DUPLICATE = 0.6
_SHINGLE = 5
_WORD = re.compile(r"\w+")


def shingles(text: str) -> frozenset[int]:
    words = _WORD.findall(normalize_text(text).lower())
    if len(words) < _SHINGLE:
        return frozenset({hash(tuple(words))}) if words else frozenset()
    return frozenset(hash(tuple(words[i : i + _SHINGLE])) for i in range(len(words) - _SHINGLE + 1))


def containment(a: frozenset[int], b: frozenset[int]) -> float:
    """Share of the smaller set found in the larger one (0 when either is empty)."""
    if not a or not b:
        return 0.0
    small, large = (a, b) if len(a) <= len(b) else (b, a)
    return len(small & large) / len(small)


@dataclass(frozen=True)
class Origins:
    """The origin of each source id; origins are named by their first source's domain."""

    of: Mapping[str, str]

    def count(self, source_ids: Sequence[str]) -> int:
        return len({self.of[s] for s in source_ids if s in self.of})


def origin_domain(source: SourceRecord) -> str:
    """The registrable domain of the URL the source was fetched from."""
    for url in (source.final_url, source.url):
        try:
            host = urlsplit(url).hostname
        except ValueError:
            host = None
        if host:
            return registrable_domain(host)
    return ""


def group_origins(sources: Sequence[SourceRecord], texts: Mapping[str, str]) -> Origins:
    parent = {s.id: s.id for s in sources}

    def find(node: str) -> str:
        while parent[node] != node:
            parent[node] = parent[parent[node]]
            node = parent[node]
        return node

    def union(a: str, b: str) -> None:
        root_a, root_b = find(a), find(b)
        if root_a != root_b:
            parent[max(root_a, root_b)] = min(root_a, root_b)

    names = {s.id: origin_domain(s) for s in sources}
    by_domain: dict[str, str] = {}
    for source in sources:
        domain = names[source.id]
        if domain in by_domain:
            union(by_domain[domain], source.id)
        else:
            by_domain[domain] = source.id
    prints = {s.id: shingles(texts.get(s.id, "")) for s in sources}
    ids = [s.id for s in sources]
    for i, first in enumerate(ids):
        for second in ids[i + 1 :]:
            if containment(prints[first], prints[second]) >= NEAR_DUPLICATE:
                union(first, second)
    return Origins({s.id: names[find(s.id)] for s in sources})
