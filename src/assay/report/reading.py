"""A report read back the way a reader reads it: the **Answer:** line without its evidence."""

from __future__ import annotations

import re

ANSWER_PREFIX = "**Answer:**"
NO_ANSWER_PREFIX = "No direct answer found"
CLOSEST_EVIDENCE = "closest evidence:"
"""What a no-answer line shows next: the claims nearest to an answer, each with its marker."""
_MARKER = re.compile(r"\((claim_\d+): [a-z_]+\)")


def answer_prefixes() -> list[str]:
    """The answer line's opening in every language a report is written in."""
    from assay.language import report_texts

    return list(dict.fromkeys([ANSWER_PREFIX, *(f"**{t}**" for t in report_texts("answer"))]))


def without_basis(text: str) -> str:
    """An answer line's text without the claim it rests on (" — resting on: …", in any
    language)."""
    from assay.language import report_texts

    for basis in report_texts("resting_on"):
        text = text.split(f" — {basis}")[0]
    return text


def report_answer(report: str) -> str:
    """The answer a reader finds in ``report`` ("" when it says no direct answer was found),
    whatever language the report is written in."""
    prefixes = tuple(answer_prefixes())
    for line in report.splitlines():
        if line.startswith(prefixes):
            text = line.removeprefix(next(p for p in prefixes if line.startswith(p))).strip()
            if text.startswith(NO_ANSWER_PREFIX):
                return ""
            return _MARKER.sub("", without_basis(text)).strip()
    return ""
