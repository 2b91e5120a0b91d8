"""Control characters: removed from extracted text, and from anything shown on a terminal.

Why: a hostile page (or file, or run directory) can carry ESC sequences that recolour the
terminal, set its title (``ESC ] 0 ; … BEL``) or move the cursor over earlier output. Text
assay extracts keeps only newline and tab of the C0 and C1 controls (and DEL), so nothing
stored can drive a terminal; ``for_terminal`` repeats that for any text the CLI prints,
and ``json_for_terminal`` for the JSON it prints. A name a user declares (a roster's agent)
is refused outright when ``has_controls``: it is printed and written in many places.
"""

from __future__ import annotations

import re

_CONTROLS = re.compile("[\x00-\x08\x0b\x0d-\x1f\x7f-\x9f]")
_CARRIAGE_RETURN_LINE = re.compile("\r\n?")
_ANY_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f]")
_UNESCAPED_IN_JSON = re.compile("[\x7f-\x9f]")  # json.dumps escapes C0, never DEL or C1


def has_controls(text: str) -> bool:
    """Whether ``text`` holds any C0/C1 control or DEL, newline and tab included."""
    return _ANY_CONTROL.search(text) is not None


def strip_controls(text: str) -> str:
    """``text`` without C0/C1 controls or DEL; CR and CRLF become newlines.

    Newline and tab stay, and so does form feed: it separates a PDF's pages in extracted
    text and drives no terminal sequence (``for_terminal`` turns it into a newline).
    """
    if not _CONTROLS.search(text):
        return text
    return _CONTROLS.sub("", _CARRIAGE_RETURN_LINE.sub("\n", text))


def for_terminal(text: str) -> str:
    """``strip_controls``, with form feeds as newlines: what may reach a terminal."""
    return strip_controls(text).replace("\f", "\n")


def json_for_terminal(document: str) -> str:
    """A JSON text (from ``json.dumps(..., ensure_ascii=False)``) with DEL and C1 escaped.

    Outside strings JSON has no such characters, so each one is inside a string, where
    ``\\u009b`` decodes to the same value: the document means the same, and a C1 CSI can
    no longer reach the terminal raw.
    """
    return _UNESCAPED_IN_JSON.sub(lambda m: f"\\u{ord(m.group()):04x}", document)
