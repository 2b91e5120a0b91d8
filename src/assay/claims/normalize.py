"""Text normalisation for comparing quotes with snapshots, and number extraction."""

from __future__ import annotations

import re
import unicodedata

_TYPOGRAPHY = str.maketrans(
    {
        "\u2018": "'",
        "\u2019": "'",
        "\u201a": "'",
        "\u201b": "'",
        "\u201c": '"',
        "\u201d": '"',
        "\u201e": '"',
        "\u2010": "-",
        "\u2011": "-",
        "\u2012": "-",
        "\u2013": "-",
        "\u2014": "-",
        "\u2212": "-",
        "\u00a0": " ",
        "\u00ad": None,
        "\u200b": None,
    }
)
_SPACE = re.compile(r"\s+")
_NUMBER = re.compile(r"(?<![\w.])[-+]?\d[\d,]*(?:\.\d+)?%?")


def normalize_text(text: str) -> str:
    """NFKC, typographic quotes and dashes made plain, whitespace collapsed."""
    return _SPACE.sub(" ", unicodedata.normalize("NFKC", text).translate(_TYPOGRAPHY)).strip()


def numbers_in(text: str) -> set[str]:
    """Numbers, years, quantities and percentages, with thousands separators removed."""
    found = set()
    for match in _NUMBER.finditer(normalize_text(text)):
        token = match.group().lstrip("+").replace(",", "")
        found.add(token.rstrip("%").rstrip("."))
    return {n for n in found if n and n != "-"}


def locate(haystack: str, needle: str) -> list[tuple[int, int]]:
    """Every (start, end) span of ``haystack`` whose normalised text equals ``needle``'s.

    Offsets are into the original ``haystack``; matching ignores whitespace runs,
    Unicode compatibility forms and typographic quotes.
    """
    target = normalize_text(needle)
    if not target:
        return []
    normalised, mapping = _normalise_with_map(haystack)
    spans = []
    start = normalised.find(target)
    while start != -1:
        end = start + len(target)
        spans.append((mapping[start], mapping[end - 1] + 1))
        start = normalised.find(target, start + 1)
    return spans


def _normalise_with_map(text: str) -> tuple[str, list[int]]:
    """The normalised text and, for each of its characters, the original index."""
    out: list[str] = []
    mapping: list[int] = []
    previous_space = True
    for index, char in enumerate(text):
        for piece in unicodedata.normalize("NFKC", char).translate(_TYPOGRAPHY):
            if piece.isspace():
                if previous_space:
                    continue
                piece, previous_space = " ", True
            else:
                previous_space = False
            out.append(piece)
            mapping.append(index)
    while out and out[-1] == " ":
        out.pop()
        mapping.pop()
    return "".join(out), mapping
