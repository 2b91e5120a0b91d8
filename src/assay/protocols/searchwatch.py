"""How a run's searches went, watched from its event log: none worked, all came back
empty, some failed, fine.

Why the runner watches: every protocol searches through ``GatherSession.search``, which
records one ``tool.search`` event per call with each failed query's error. A run in which
not one query answered has nothing to stand on, whatever the protocol made of that, so it
ends ``failed`` with the first provider error and what usually fixes it; so does a run
whose every search answered with no result and that read no page (``NoSearchResults``:
the report would be empty, and saying "done" hides why); a run in which some queries
failed goes on, with a warning.
"""

from __future__ import annotations

from dataclasses import dataclass

from assay.errors import ProviderError
from assay.events import Event, ToolOpenUrl, ToolSearch

_FIXES = {
    "local": "add documents with `assay index add PATH...` (or choose another --search)",
    "searxng": "check --searxng-url: the SearxNG base URL, or the URL `assay lab serve` prints",
}
_DEFAULT_FIX = "check --search, the provider's key (`assay keys list`) and the network"


class NoSearchSucceeded(ProviderError):
    """Every search of the run failed (exit code 1, as every provider failure)."""


class NoSearchResults(ProviderError):
    """Every search of the run answered with nothing, and no page was read."""


@dataclass
class SearchWatch:
    """A run-log listener counting search queries that answered and that failed."""

    answered: int = 0
    failed: int = 0
    first_error: str | None = None
    provider: str | None = None
    results: int | None = 0
    """Results the searches offered; None once an event did not say (not "empty")."""
    pages_read: int = 0

    def __call__(self, event: Event) -> None:
        if isinstance(event, ToolOpenUrl):
            self.pages_read += 1
        if not isinstance(event, ToolSearch):
            return
        if self.results is not None:
            self.results += event.result_count
        errors = event.errors or {}
        self.provider = self.provider or event.provider
        self.failed += len(errors)
        self.answered += max(0, len(event.queries) - len(errors))
        if errors and self.first_error is None:
            self.first_error = str(next(iter(errors.values())))

    def failure(self) -> ProviderError | None:
        """The error that ends the run when searches were made and none answered, or all
        answered empty and nothing was read."""
        if self.answered > 0 and self.results == 0 and self.pages_read == 0:
            return NoSearchResults(
                f"every search came back empty ({self.answered} queries to "
                f"{self.provider or 'the search provider'}), so there was nothing to read; "
                "fix: rephrase or broaden the question, loosen --include-domain, "
                "--exclude-domain, --since or --until, or choose another --search"
            )
        if self.failed == 0 or self.answered > 0:
            return None
        fix = _FIXES.get(self.provider or "", _DEFAULT_FIX)
        return NoSearchSucceeded(
            f"no search succeeded ({self.failed} queries failed); first error: "
            f"{self.first_error}; fix: {fix}"
        )

    def warning(self) -> str | None:
        """What to tell the user when some queries failed and others answered."""
        if self.failed == 0 or self.answered == 0:
            return None
        total = self.failed + self.answered
        return f"{self.failed} of {total} search queries failed; first error: {self.first_error}"
