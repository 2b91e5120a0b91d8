"""The planner's review of a worker's findings: four checks and the direction score.

Pure functions. The score is the spec's weighted total (max 10)::

    accepted sources   30%   0 → 0, 1 → 5, 2 → 8, 3+ → 10
    avg authority      30%   mean of the accepted sources' authority (1–5) × 2
    best confidence    20%   high 10, medium 6, low 2 (0 without a fact)
    angle coverage     20%   (query angles with ≥ 1 fact) / (all angles) × 10

A direction whose score is below ``THRESHOLD`` (6.0), or that fails any check, escalates.

Each input is what the spec means, measured on what the direction itself established: a
fact counts only when it is relevant to the direction's own sub-question and names what
that sub-question names (``Fact.established``), so a direction whose pages are about other
things (another country's publishers, a singer for a question on a coach) scores low and
escalates, however relevant its facts are to the topic at large:

- a source counts when it was accepted, fetched and gave at least one established fact; it
  counts once per URL (a retry that re-reads a page adds nothing) and once per origin
  (syndicated copies and one site's pages are one source, as the verification engine
  decides independence);
- authority is a code rule on the URL (``authority``), where a host the rule does not know
  is 2 (unrated), not "good"; an unrated source earns 3 only when one of its relevant facts
  is confirmed by another independent origin (``effective_authority``);
- confidence is absolute: an established fact is high when the verification engine verified it
  (≥ 2 independent origins support it), medium when one origin supports it (weak), low
  otherwise (``confidence_of``) — never relative to the page's best sentence;
- coverage counts a query angle only when an established fact answers it (the fact speaks to
  that query, not merely came back from it).

Scores are for the direction's record (``Review.parts`` keeps the four inputs).

Recency comes from the search result's published date, when the provider gives one.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from urllib.parse import urlsplit

from assay.protocols.deep.findings import Confidence, Findings, SourceNote
from assay.reading.relevance import relevance
from assay.urls import registrable_domain

THRESHOLD = 6.0
WEIGHTS = {"sources": 0.3, "authority": 0.3, "confidence": 0.2, "coverage": 0.2}
CONFIDENCE_POINTS = {"high": 10.0, "medium": 6.0, "low": 2.0}
MIN_AUTHORITY_CHECK = 3
UNRATED = 2
"""The authority of a host the rule does not know: acceptable, not good."""
CORROBORATED = 3
"""An unrated source whose relevant fact another independent origin confirms."""

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
    3  established news;
    2  forums, Q&A and blogs (reddit, medium, substack, a host or path naming a blog/forum),
       and any site the rule does not know (unrated: see ``effective_authority``);
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
    return 3 if domain in _NEWS else UNRATED


def is_rated(url: str) -> bool:
    """Whether ``authority`` knows the host (an unrated host scores ``UNRATED``)."""
    host = (urlsplit(url).hostname or "").lower()
    domain = registrable_domain(host) or host
    known = _SCHOLARLY | _STANDARDS | _REFERENCE | _NEWS | _FORUMS | _SOCIAL
    return domain in known or authority(url) != UNRATED


def confidence_of(status: str, relevant: bool) -> Confidence:
    """A fact's absolute confidence from the verification engine's status."""
    if not relevant:
        return "low"
    return {"verified": "high", "weak": "medium"}.get(status, "low")  # type: ignore[return-value]


def effective_authority(note: SourceNote, findings: Findings) -> int:
    """The source's authority, an unrated source raised when it is independently confirmed."""
    if note.authority != UNRATED or is_rated(note.url):
        return note.authority
    confirmed = any(
        f.confidence == "high" for f in findings.established_facts() if f.url == note.url
    )
    return CORROBORATED if confirmed else note.authority


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
    """The direction score from its raw inputs."""
    return total_of(
        {
            "sources": source_points(accepted),
            "authority": authority_points(authorities),
            "confidence": confidence_points(confidences),
            "coverage": coverage_points(covered, total),
        }
    )


def total_of(parts: Mapping[str, float]) -> float:
    """The weighted total, rounded to 2 places (so 6.0 is exactly 6.0)."""
    return round(min(sum(parts[name] * weight for name, weight in WEIGHTS.items()), 10.0), 2)


def covered_angles(findings: Findings) -> list[str]:
    """The queries an established fact answers: it speaks to the query (whichever query
    found its page: a search tool returns a page once, for the first query that found it)."""
    facts = findings.established_facts()
    return [
        q
        for q in findings.angle_queries()
        if any((f.angle == q and f.answers_angle) or relevance(q, f.text).relevant for f in facts)
    ]


def counted_sources(
    findings: Findings, origins: Mapping[str, str] | None = None
) -> list[SourceNote]:
    """Fetched sources with an established fact, once per URL and once per origin."""
    useful = {f.url for f in findings.established_facts()}
    counted: dict[str, SourceNote] = {}
    for note in findings.fetched():
        if note.url not in useful:
            continue
        origin = (origins or {}).get(note.source_id or "", note.url)
        counted.setdefault(origin, note)
    return list(counted.values())


def score_parts(findings: Findings, origins: Mapping[str, str] | None = None) -> dict[str, float]:
    """The four inputs, each on its 0–10 scale."""
    counted = counted_sources(findings, origins)
    return {
        "sources": source_points(len(counted)),
        "authority": authority_points([effective_authority(s, findings) for s in counted]),
        "confidence": confidence_points([f.confidence for f in findings.established_facts()]),
        "coverage": coverage_points(len(covered_angles(findings)), len(findings.angle_queries())),
    }


def direction_score(findings: Findings, origins: Mapping[str, str] | None = None) -> float:
    return total_of(score_parts(findings, origins))


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


def run_checks(findings: Findings, origins: Mapping[str, str] | None = None) -> Checks:
    urls = {s.url for s in findings.fetched()}
    counted = counted_sources(findings, origins)
    good = [s for s in counted if effective_authority(s, findings) >= MIN_AUTHORITY_CHECK]
    return Checks(
        accepted_sources=len(good) >= 2,
        coverage=len(covered_angles(findings)) == len(findings.angle_queries()) > 0,
        confidence_floor=any(
            f.confidence in ("high", "medium") for f in findings.established_facts()
        ),
        no_fabrication=all(f.url and f.url in urls for f in findings.facts),
    )


def needs_escalation(checks: Checks, score: float) -> bool:
    return bool(checks.failed()) or score < THRESHOLD


def escalation_reason(checks: Checks, score: float) -> str:
    reasons = [f"check failed: {name}" for name in checks.failed()]
    if score < THRESHOLD:
        reasons.append(f"score {score:.1f} < {THRESHOLD:.1f}")
    return "; ".join(reasons)
