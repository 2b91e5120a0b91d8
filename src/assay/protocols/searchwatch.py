"""How a run's searches went, watched from its event log: none worked, some failed, fine.

Why the runner watches: every protocol searches through ``GatherSession.search``, which
records one ``tool.search`` event per call with each failed query's error. A run in which
not one query answered has nothing to stand on, whatever the protocol made of that, so it
ends ``failed`` with the first provider error and what usually fixes it; a run in which
some queries failed goes on, with a warning.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from assay.errors import ProviderError

_FIXES = {
    "local": "add documents with `assay index add PATH...` (or choose another --search)",
    "searxng": "check --searxng-url: the SearxNG base URL, or the URL `assay lab serve` prints",
}
_DEFAULT_FIX = "check --search, the provider's key (`assay keys list`) and the network"


class NoSearchSucceeded(ProviderError):
    """Every search of the run failed (exit code 1, as every provider failure)."""


@dataclass
class SearchWatch:
    """A run-log listener counting search queries that answered and that failed."""

    answered: int = 0
    failed: int = 0
    first_error: str | None = None
    provider: str | None = None

    def __call__(self, record: dict[str, Any]) -> None:
        if record.get("type") != "tool.search":
            return
        data = record.get("data") or {}
        errors = data.get("errors") or {}
        queries = data.get("queries") or []
        self.provider = self.provider or data.get("provider")
        self.failed += len(errors)
        self.answered += max(0, len(queries) - len(errors))
        if errors and self.first_error is None:
            self.first_error = str(next(iter(errors.values())))

    def failure(self) -> NoSearchSucceeded | None:
        """The error that ends the run when searches were made and none answered."""
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
