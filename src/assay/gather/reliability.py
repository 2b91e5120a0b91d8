"""What kind of source a page is, by its domain: primary, reference, news, forum or unknown.

The kinds come from ``data/reliability.toml`` (a list of domain patterns per kind, read
from the package, never fetched); the longest pattern that covers the page's host on a
label boundary decides (``gov`` covers ``nasa.gov``; ``plato.stanford.edu`` beats
``edu``). A kind is a prior about the *source*, not a verdict on a claim: verification
still needs the quote on the page and independent support.

It is recorded on each source's line in sources.jsonl (``reliability``), shown in the
report's sources list, and is one small feature in choosing which search results to read
first: ``READING_WEIGHT`` is added to a result's relevance score (a probability, 0–1), so
it only reorders results whose relevance is within a few hundredths; a forum post that
answers the question still comes before an encyclopedia page that does not.
"""

from __future__ import annotations

import functools
import tomllib
from importlib.resources import files
from typing import Literal

from assay.domains import covers, host_of

Reliability = Literal["primary", "reference", "news", "forum", "unknown"]
KINDS: tuple[Reliability, ...] = ("primary", "reference", "news", "forum", "unknown")

READING_WEIGHT: dict[Reliability, float] = {
    "primary": 0.05,
    "reference": 0.04,
    "news": 0.02,
    "unknown": 0.0,
    "forum": -0.03,
}


@functools.cache
def _patterns() -> tuple[tuple[str, Reliability], ...]:
    """(pattern, kind), longest pattern first."""
    text = files("assay.gather").joinpath("data/reliability.toml").read_text(encoding="utf-8")
    table = tomllib.loads(text)
    pairs = [(p.lower(), kind) for kind in KINDS if kind in table for p in table[kind]]
    return tuple(sorted(pairs, key=lambda pair: -len(pair[0])))


def reliability_of(url: str) -> Reliability:
    """The kind of the source at ``url`` (``unknown`` for a host no pattern covers)."""
    host = host_of(url)
    if not host:
        return "unknown"
    for pattern, kind in _patterns():
        if covers(pattern, host):
            return kind
    return "unknown"


def reading_bonus(url: str) -> float:
    """What the source's kind adds to a result's relevance when choosing what to read."""
    return READING_WEIGHT[reliability_of(url)]
