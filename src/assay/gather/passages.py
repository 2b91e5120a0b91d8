"""Cutting a document into passages: the bounded rows the full-text index searches.

Why: FTS5's ``snippet()`` (and bm25's position lists) cost time in proportion to the row
they read, so one 30 MB document made every matching search take minutes. Each passage is
at most ``PASSAGE_CHARS`` characters, cut at a line break when there is one and at a space
otherwise, so a search touches only small rows whatever was added. Joined in order, the
passages give the document's text back exactly.
"""

from __future__ import annotations

from collections.abc import Iterator

PASSAGE_CHARS = 4000


def split_passages(text: str, size: int = PASSAGE_CHARS) -> Iterator[str]:
    """``text`` in consecutive pieces of at most ``size`` characters ("".join gives it back)."""
    start = 0
    while len(text) - start > size:
        end = start + size
        cut = text.rfind("\n", start + size // 2, end)
        if cut < 0:
            cut = text.rfind(" ", start + size // 2, end)
        end = cut + 1 if cut >= 0 else end
        yield text[start:end]
        start = end
    if start < len(text) or not text:
        yield text[start:]
