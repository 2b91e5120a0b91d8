"""The planner's review of a worker's findings: four checks and the direction score.

Pure functions. The score is the spec's weighted total (max 10)::

    accepted sources   30%   0 → 0, 1 → 5, 2 → 8, 3+ → 10
    avg authority      30%   mean of the accepted sources' authority (1–5) × 2
    best confidence    20%   high 10, medium 6, low 2 (0 without a fact)
    angle coverage     20%   (query angles with ≥ 1 fact) / (all angles) × 10

A direction whose score is below ``THRESHOLD`` (6.0), or that fails any check, escalates.

Source authority is a code rule on the URL (documented in ``authority``); recency comes
from the search result's published date, when the provider gives one.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from urllib.parse import urlsplit

from assay.gather.urls import registrable_domain
from assay.protocols.deep.findings import Findings

THRESHOLD = 6.0
WEIGHTS = {"sources": 0.3, "authority": 0.3, "confidence": 0.2, "coverage": 0.2}
CONFIDENCE_POINTS = {"high": 10.0, "medium": 6.0, "low": 2.0}
MIN_AUTHORITY_CHECK = 3

_SCHOLARLY = {
    "doi.org", "arxiv.org", "nih.gov", "nature.com", "science.org", "sciencedirect.com",
    "springer.com", "wiley.com", "jstor.org", "plos.org", "bmj.com", "thelancet.com",
    "acm.org", "ieee.org", "semanticscholar.org", "researchgate.net",
}  # fmt: skip
_STANDARDS = {
    "w3.org", "ietf.org", "iso.org", "who.int", "un.org", "oecd.org", "worldbank.org",
    "europa.eu", "imf.org", "python.org", "rfc-editor.org", "unicode.org", "ecma-international.org",
}  # fmt: skip
_REFERENCE = {"wikipedia.org", "britannica.com", "mozilla.org", "readthedocs.io", "github.com"}
_NEWS = {
    "reuters.com", "apnews.com", "bbc.co.uk", "bbc.com", "nytimes.com", "theguardian.com",
    "ft.com", "economist.com", "washingtonpost.com", "bloomberg.com", "npr.org", "wsj.com",
}  # fmt: skip
_FORUMS = {
    "reddit.com", "quora.com", "medium.com", "substack.com", "blogspot.com", "wordpress.com",
    "stackexchange.com", "stackoverflow.com", "tumblr.com", "answers.com",
}  # fmt: skip
_SOCIAL = {"facebook.com", "x.com", "twitter.com", "tiktok.com", "pinterest.com", "instagram.com"}
_OFFICIAL_TLDS = (".gov", ".mil", ".int", ".edu")
_ACADEMIC = re.compile(r"\.(ac|edu|gov|gouv|govt)\.[a-z]{2}$")
_YEAR = re.compile(r"\b(19|20)\d{2}\b")


def authority(url: str) -> int:
    """A source's authority, 1–5, from its URL.

    5  official and scholarly: .gov/.mil/.int/.edu (and ac./gov. country forms), standards
       bodies and intergovernmental sites, scholarly publishers and preprint servers;
    4  reference works and official documentation (Wikipedia, Britannica, docs.* hosts);
    3  established news, and any site the rule does not know (including a lab's hosts);
    2  forums, Q&A and blogs (reddit, medium, substack, a host or path naming a blog/forum);
    1  social media.
    """
    parts = urlsplit(url)
    host = (parts.hostname or "").lower()
    domain = registrable_domain(host) or host
    path = parts.path.lower()
    if host.endswith(_OFFICIAL_TLDS) or _ACADEMIC.search(host) or domain in _SCHOLARLY:
        return 5
    if domain in _STANDARDS:
        return 5
    if domain in _SOCIAL:
        return 1
    if domain in _FORUMS or any(w in host for w in ("blog", "forum")) or "/blog" in path:
        return 2
    if domain in _REFERENCE or host.startswith(("docs.", "developer.", "developers.")):
        return 4
    return 3


def recency(published: str | None, min_year: int | None) -> tuple[bool, str]:
    """(acceptable, label): a dated source older than ``min_year`` fails; undated passes."""
    match = _YEAR.search(published or "")
    if match is None:
        return True, "undated"
    year = int(match.group(0))
    if min_year is not None and year < min_year:
        return False, f"{year} (before {min_year})"
    return True, str(year)


def source_points(count: int) -> float:
    return {0: 0.0, 1: 5.0, 2: 8.0}.get(count, 10.0)


def authority_points(scores: Sequence[int]) -> float:
    return (sum(scores) / len(scores)) * 2 if scores else 0.0


def confidence_points(confidences: Sequence[str]) -> float:
    return max((CONFIDENCE_POINTS[c] for c in confidences), default=0.0)


def coverage_points(covered: int, total: int) -> float:
    return covered / total * 10 if total else 0.0


def weighted_score(
    accepted: int, authorities: Sequence[int], confidences: Sequence[str], covered: int, total: int
) -> float:
    """The direction score from its parts, rounded to 2 places (so 6.0 is exactly 6.0)."""
    total_score = (
        source_points(accepted) * WEIGHTS["sources"]
        + authority_points(authorities) * WEIGHTS["authority"]
        + confidence_points(confidences) * WEIGHTS["confidence"]
        + coverage_points(covered, total) * WEIGHTS["coverage"]
    )
    return round(min(total_score, 10.0), 2)


def covered_angles(findings: Findings) -> list[str]:
    with_fact = {f.angle for f in findings.facts}
    return [q for q in findings.queries if q in with_fact]


def direction_score(findings: Findings) -> float:
    fetched = findings.fetched()
    return weighted_score(
        len(fetched),
        [s.authority for s in fetched],
        [f.confidence for f in findings.facts],
        len(covered_angles(findings)),
        len(findings.queries),
    )


@dataclass(frozen=True)
class Checks:
    """The four post-worker checks."""

    accepted_sources: bool
    coverage: bool
    confidence_floor: bool
    no_fabrication: bool

    def as_dict(self) -> dict[str, bool]:
        return {
            "accepted_sources": self.accepted_sources,
            "coverage": self.coverage,
            "confidence_floor": self.confidence_floor,
            "no_fabrication": self.no_fabrication,
        }

    def failed(self) -> list[str]:
        return [name for name, passed in self.as_dict().items() if not passed]


def run_checks(findings: Findings) -> Checks:
    fetched = findings.fetched()
    urls = {s.url for s in fetched}
    return Checks(
        accepted_sources=sum(1 for s in fetched if s.authority >= MIN_AUTHORITY_CHECK) >= 2,
        coverage=len(covered_angles(findings)) == len(findings.queries) > 0,
        confidence_floor=any(f.confidence in ("high", "medium") for f in findings.facts),
        no_fabrication=all(f.url and f.url in urls for f in findings.facts),
    )


def needs_escalation(checks: Checks, score: float) -> bool:
    return bool(checks.failed()) or score < THRESHOLD


def escalation_reason(checks: Checks, score: float) -> str:
    reasons = [f"check failed: {name}" for name in checks.failed()]
    if score < THRESHOLD:
        reasons.append(f"score {score:.1f} < {THRESHOLD:.1f}")
    return "; ".join(reasons)
