"""A run's source controls applied to what its searches offer.

``SourceControls`` holds the run's ``--include-domain`` / ``--exclude-domain`` rule and
its ``--since`` / ``--until`` window. ``GatherSession.search`` asks the providers for the
window as a ``TimeRange`` where it can (``provider_window``), then ``screen`` drops the
results the rule refuses and those whose published date falls outside the window; a
result without a readable date is kept and counted (the session warns once a run). The
same rule refuses every fetch in the fetcher (``fetch/client.py``), so a page of an
excluded domain reached by a link or a redirect is not read either.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from datetime import UTC, date, datetime
from typing import TYPE_CHECKING

from assay.domains import DomainRule
from assay.gather.dates import outside, published_span, window_since
from assay.gather.search.base import SearchResult, TimeRange
from assay.gather.search.web_search import QueryOutcome, WebSearchOutcome

if TYPE_CHECKING:
    from assay.config import Settings


@dataclass(frozen=True)
class Screened:
    """What screening kept, and how many it dropped or could not date."""

    outcome: WebSearchOutcome
    off_domain: int = 0
    out_of_window: int = 0
    undated: int = 0


@dataclass(frozen=True)
class SourceControls:
    """The run's rule on domains and its window on publication dates."""

    domains: DomainRule = field(default_factory=DomainRule)
    since: date | None = None
    until: date | None = None

    @classmethod
    def of(cls, settings: Settings) -> SourceControls:
        # the settings' entries are canonical already (config parses them)
        domains = DomainRule(tuple(settings.include_domains), tuple(settings.exclude_domains))
        return cls(domains, settings.since, settings.until)

    @property
    def dated(self) -> bool:
        return self.since is not None or self.until is not None

    def provider_window(
        self, asked: TimeRange | None, today: date | None = None
    ) -> TimeRange | None:
        """The window to ask providers for: the caller's, else the one ``since`` needs."""
        if asked is not None or self.since is None:
            return asked
        return window_since(self.since, today or datetime.now(UTC).date())

    def screen(self, outcome: WebSearchOutcome) -> Screened:
        if not self.domains and not self.dated:
            return Screened(outcome)
        counts = {"off_domain": 0, "out_of_window": 0, "undated": 0}
        kept: list[QueryOutcome] = []
        for query in outcome.outcomes:
            results = [r for r in query.results if self._keep(r, counts)]
            kept.append(replace(query, results=tuple(results)))
        return Screened(WebSearchOutcome(tuple(kept)), **counts)

    def _keep(self, result: SearchResult, counts: dict[str, int]) -> bool:
        if self.domains.refusal(result.url) is not None:
            counts["off_domain"] += 1
            return False
        if not self.dated:
            return True
        span = published_span(result.published_date)
        if span is None:
            counts["undated"] += 1
            return True
        if outside(span, self.since, self.until):
            counts["out_of_window"] += 1
            return False
        return True
