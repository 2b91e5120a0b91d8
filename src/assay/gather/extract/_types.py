"""The one result type every extractor returns."""

from __future__ import annotations

from dataclasses import dataclass

from assay.controls import strip_controls


@dataclass(frozen=True)
class Extracted:
    """The main text of one fetched body, with what is known about it.

    ``text`` is markdown for HTML (headings, paragraphs, lists and tables kept; navigation,
    footers, scripts and hidden elements dropped); PDF pages are separated by a form feed
    (``text.split("\\f")`` gives the pages); JSON is pretty-printed in a fenced block; any
    other text is passed through as decoded.
    """

    title: str | None
    author: str | None
    date: str | None
    """An ISO 8601 date (``YYYY-MM-DD``) when the source states one."""
    text: str
    content_type: str
    """The media type the text came from, without parameters (``text/html``)."""
    extractor: str
    """What produced ``text``: ``"trafilatura 2.3.1"``, ``"html-fallback"``, ``"pypdfium2 5.15.2"``,
    ``"json"`` or ``"plain"``."""

    def __post_init__(self) -> None:
        # A page's control characters (ESC sequences that recolour a terminal or set its
        # title) never reach stored text, whichever extractor produced it.
        for name in ("title", "author", "text"):
            value = getattr(self, name)
            if value is not None:
                object.__setattr__(self, name, strip_controls(value))
