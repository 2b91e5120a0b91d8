"""Pages written from one template about different subjects: real encyclopedia text.

Provenance: the sentences of PAGES are copied verbatim from the HotpotQA corpus (the
passages of the 100-question train subset, titles as given there), CC BY-SA 4.0, except
the two American-actor pages, copied from the PopQA corpus (Mallen et al., 2023), MIT.
Copied here so the tests never read the shared data folder. A page's sentences are
joined with single spaces, as the corpus splits them.

Each pair fills the same slots (a district, a decade, a founding year, a birth date) for
two subjects, or one subject's own words with another value (ALTERED: the one edit the
tests make to real text, marked where it is used).
"""

from __future__ import annotations

PAGES: dict[str, list[str]] = {
    # two census-designated places of one district
    "Kahuku, Hawaii": [
        "Kahuku is a census-designated place (CDP) in the Koolauloa District on the island of "
        "Oahu, County of Honolulu, Hawaii, United States.",
        'In the Hawaiian language, "ka huku" means "the projection", presumably a reference to '
        "Kahuku Point nearby, the northernmost point of land on the island of Oahu.",
        "As of the 2010 Census, Kahuku had a population of 2,614.",
    ],
    "Laie, Hawaii": [
        "Laie is a census-designated place (CDP) located in the Koolauloa District on the "
        "island of Oahu in Honolulu County, Hawaii, United States.",
        'In Hawaiian, "lāʻ ie" means ""ʻ ie" leaf" ("ʻ ieʻ ie" is a climbing screwpine: '
        '"Freycinetia arborea").',
        "The population was 6,138 at the 2010 census.",
    ],
    # two aircraft of one maker's "HD nn" series
    "Heinkel HD 32": [
        "The Heinkel HD 32 was a trainer developed in Germany in the 1920s, a derivative of the "
        "HD 21.",
        "Like that aircraft, it was a conventional, single-bay biplane, but had only two "
        "cockpits rather than the three that the HD 21 had.",
        "The other significant change was the use of a Siemens radial engine in place of the "
        "inline units that powered most of the HD 21 family.",
    ],
    "Heinkel HD 36": [
        "The Heinkel HD 36 was a trainer developed in Germany in the 1920s at the request of "
        "the Swedish Air Force, which was in search of a new trainer aircraft.",
        "The newly formed air force had previously evaluated the HD 35, found it to be "
        "underpowered, and asked Heinkel to address this problem.",
        "Heinkel's response was a development of the HD 35 modified to use the Mercedes D.III "
        "engine instead.",
    ],
    # two Danish heavy metal bands from Copenhagen
    "Mercyful Fate": [
        "Mercyful Fate is a Danish heavy metal band from Copenhagen, formed in 1981 by "
        "vocalist King Diamond and guitarist Hank Shermann.",
        "Influenced by progressive rock and hard rock, with lyrics dealing with Satan and the "
        "occult, Mercyful Fate were part of the first wave of black metal in the early to "
        "mid-1980s.",
        "Since the band's inception in 1981, Mercyful Fate have released seven studio albums, "
        "two extended plays and four compilations.",
    ],
    "Volbeat": [
        "Volbeat are a Danish heavy metal band formed in Copenhagen in 2001.",
        "They play a fusion of rock and roll, heavy metal and rockabilly.",
        "The band is signed to Dutch label Mascot Records and has released six studio albums "
        "and one DVD.",
    ],
    # two companies whose pages say "The company was founded in <year>"
    "Two Dollar Radio": [
        "Two Dollar Radio is an independent mom-and-pop publishing house based in Columbus, Ohio.",
        "The company was founded in 2005 by husband and wife team Eric Obenauf and Eliza Jane "
        "Wood-Obenauf, with Brian Obenauf.",
        "The press specializes in literary fiction.",
    ],
    "Little Caesars": [
        "Little Caesar Enterprises Inc. (doing business as Little Caesars) is the "
        "third-largest pizza chain in the United States, behind Pizza Hut and Domino's Pizza.",
        "It operates and franchises pizza restaurants in the United States and internationally "
        "in Asia, the Middle East, Australia, Canada, Latin America and the Caribbean.",
        "The company was founded in 1959 and is based in Detroit, Michigan, headquartered in "
        "the Fox Theatre building in Downtown.",
    ],
    # one publisher (its founding year is the slot ALTERED below)
    "Gyldendal": [
        "Gyldendalske Boghandel, Nordisk Forlag A/S, usually referred to simply as Gyldendal "
        "(] ; Nasdaq:\u00a0GYLD A , ) is a Danish publishing house.",
        "Founded in 1770 by Søren Gyldendal, it is the oldest and largest publishing house in "
        "Denmark, offering a wide selection of books including fiction, non-fiction and "
        "dictionaries.",
        "Prior to 1925, it was also the leading publishing house in Norway, and it published "
        "all of Henrik Ibsen's works.",
    ],
    # a second publisher, with its founding year (the question "which was founded first")
    "Concordia Publishing House": [
        "Concordia Publishing House (CPH), founded in 1869, is the official publishing arm of "
        "the Lutheran Church–Missouri Synod.",
        "Headquartered in St Louis, Missouri at 3558 S. Jefferson, CPH publishes the Synod's "
        'official magazine, "The Lutheran Witness" and the Synod\'s hymnals, including "The '
        'Lutheran Hymnal" (1941), "Lutheran Worship" (1982), and "Lutheran Service Book" (2006).',
        "Concordia Publishing House is the oldest publishing company west of the Mississippi "
        "River and the world's largest distinctly Lutheran publishing house.",
    ],
    # two American actors (PopQA corpus, MIT)
    "Linden Ashby": [
        "Clarence Linden Garnett Ashby III (born May 23, 1960) is an American actor.",
        "On television, he portrayed Brett Cooper on the final two seasons of the Fox soap "
        "opera Melrose Place (1997–1999) and Sheriff Noah Stilinski on all six seasons of the "
        "MTV supernatural drama Teen Wolf (2011–2017).",
    ],
    "Patrick O'Brien Demsey": [
        "Patrick O'Brien Demsey (born December 14, 1978) is an American actor.",
    ],
}


GYLDENDAL_NORWAY = (
    'In 1925, a Norwegian publishing house named Gyldendal Norsk Forlag ("Gyldendal Norwegian '
    'Publishing House") was founded, having bought rights to Norwegian authors from Gyldendal.'
)
"""The Gyldendal page's fourth sentence (HotpotQA corpus): another page's own words."""
GYLDENDAL_1925 = PAGES["Gyldendal"][1].replace("Founded in 1770", "Founded in 1925")
"""ALTERED: the publisher's founding year given as 1925 (the corpus says 1770)."""
GYLDENDAL_ALTERED = " ".join([GYLDENDAL_1925, GYLDENDAL_NORWAY])
"""A page with the ALTERED sentence and one more real one: no near-duplicate of the page
(another origin)."""
KOOLAULOA_DISTRICT = " ".join([PAGES["Kahuku, Hawaii"][0], PAGES["Laie, Hawaii"][0]])
"""A page on the district listing both places, each in its own page's words: an independent
page stating the same fact about each."""


def text_of(title: str) -> str:
    return " ".join(PAGES[title])


def first(title: str) -> str:
    """The page's opening sentence: the one its template fills."""
    return PAGES[title][0]
