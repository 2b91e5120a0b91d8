"""The search provider protocol and the result every provider returns."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any, Literal, Protocol, runtime_checkable

if TYPE_CHECKING:
    import httpx2

    from assay.config import Settings
    from assay.keys import KeyStore

TimeRange = Literal["day", "week", "month", "year"]


@dataclass(frozen=True)
class SearchResult:
    """One hit: what a provider says a URL is about, and where in its ranking it came."""

    query: str
    title: str
    url: str
    snippet: str
    provider: str
    rank: int
    published_date: str | None = None
    # A scholarly provider's bibliographic record of the work (sources.jsonl keeps it).
    authors: tuple[str, ...] = ()
    venue: str | None = None
    year: int | None = None
    doi: str | None = None

    def bibliography(self) -> dict[str, Any]:
        """The bibliographic fields this result has (none for a web page)."""
        found = {"authors": list(self.authors), "venue": self.venue, "year": self.year,
                 "doi": self.doi}  # fmt: skip
        return {k: v for k, v in found.items() if v}

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@runtime_checkable
class SearchProvider(Protocol):
    """Anything that turns queries into ranked results."""

    name: str

    async def search(
        self,
        queries: list[str],
        *,
        max_results: int,
        time_range: TimeRange | None = None,
    ) -> list[SearchResult]:
        """Run every query; a query that fails raises ProviderError for that query only."""
        ...


class SearchProviderFactory(Protocol):
    """What an ``assay.search`` entry point loads: builds a provider from the settings."""

    def __call__(
        self, settings: Settings, *, http: httpx2.AsyncClient, keys: KeyStore
    ) -> SearchProvider: ...
