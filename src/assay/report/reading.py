"""A report read back the way a reader reads it: the **Answer:** line without its evidence."""

from __future__ import annotations

import re

ANSWER_PREFIX = "**Answer:**"
NO_ANSWER_PREFIX = "No direct answer found"
_MARKER = re.compile(r"\((claim_\d+): [a-z_]+\)")


def report_answer(report: str) -> str:
    """The answer a reader finds in ``report`` ("" when it says no direct answer was found)."""
    for line in report.splitlines():
        if line.startswith(ANSWER_PREFIX):
            text = line.removeprefix(ANSWER_PREFIX).strip()
            if text.startswith(NO_ANSWER_PREFIX):
                return ""
            return _MARKER.sub("", text.split(" — resting on:")[0]).strip()
    return ""
