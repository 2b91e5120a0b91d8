"""Places a sentence locates its subject in, and the words for kinds of place.

"… located in Brannock County, Ohio, United States" locates its subject in a chain of
places, narrowest first, after a place cue ("in", "located in", "based in"); a yes/no
question asking whether two things are in "the same state" compares such chains.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from assay.reading.names import names_in
from assay.text import word_set

PLACE_CUES = word_set("in at from near of based born located headquartered")
_TOKEN = re.compile(r"[^\W_]+")
BROADEST_PLACES = frozenset(("country", "nation", "continent"))
"""Places that close a chain ("Brannock County, Ohio, United States")."""
PLACES = BROADEST_PLACES | {
    *("state", "province", "region", "county", "prefecture", "territory"),
    *("city", "town", "village", "municipality", "district"),
}


def place_chain(text: str) -> list[str]:
    """The names right after the first place cue ("in", "located in", "based in") that
    one is, chained by commas: "in Rapides Parish, Louisiana, United States", "in
    southeastern Jiangsu province, China". A cue inside a name ("University of …") is not one.
    """
    matches = list(_TOKEN.finditer(text))
    for index, match in enumerate(matches):
        inside_name = index > 0 and matches[index - 1].group()[0].isupper()
        if match.group().lower() not in PLACE_CUES or inside_name:
            continue
        rest, cursor = text[match.end() :], 0
        chain: list[str] = []
        for name in names_in(rest):
            at = rest.find(name, cursor)
            gap = _CHAIN_GAP if chain else _CHAIN_START
            if not gap.fullmatch(rest[cursor:at]):
                break
            chain.append(name.lower())
            cursor = at + len(name)
        if chain:
            return chain
    return []


_CHAIN_START = re.compile(r"\s+(?:[a-z]+\s+){0,2}")  # "in southeastern Jiangsu", "in the US"
_CHAIN_GAP = re.compile(r"(?:\s+[a-z]+)?,\s*(?:(?:in|of)\s+)?")  # "Jiangsu province, China"


def shared_places(sides: Sequence[Sequence[str]], *, broadest_counts: bool) -> set[str]:
    """The places every side's sentences locate it in ("… located in Brannock County,
    Ohio, United States"). Asked for a state or a city, a name that closes the chains of
    both sides (the country both are in) is not a shared state."""
    chains = [[place_chain(text) for text in side] for side in sides]
    places: list[set[str]] = [{name for chain in side for name in chain} for side in chains]
    shared = places[0].intersection(*places[1:])
    if broadest_counts:
        return shared
    broadest = [{chain[-1] for chain in side if chain} for side in chains]
    return shared - broadest[0].intersection(*broadest[1:])
