"""A source's bibliographic reference, for the papers a scholarly provider found.

sources.jsonl keeps a paper's ``authors``, ``venue``, ``year`` and ``doi`` as the provider
gave them (``gather/search``); a report's source list shows them as a reference, so a
reader can cite the work and not just the page the run read.
"""

from __future__ import annotations

from assay.store.markers import neutralize
from assay.store.sources import SourceRecord

SHOWN_AUTHORS = 3


def reference(record: SourceRecord) -> str:
    """``Authors (year). Venue. doi:…`` for a paper, "" for a web page (their text came
    from an API: it is neutralized like page text)."""
    extra = record.model_extra or {}
    authors = [str(a) for a in extra.get("authors") or [] if a]
    named = ", ".join(authors[:SHOWN_AUTHORS]) + (" et al." if len(authors) > 3 else "")
    year = extra.get("year")
    parts = [f"{named} ({year})" if named and year else named or (str(year) if year else "")]
    parts += [str(extra.get("venue") or ""), f"doi:{extra['doi']}" if extra.get("doi") else ""]
    return neutralize(". ".join(p for p in parts if p))
