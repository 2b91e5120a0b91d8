"""Shared pieces of the search-synth tests: a tiny planted-claim corpus and rosters."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from assay.config import Settings, load_settings
from assay.gather.documents import Document
from assay.lab import Lab
from assay.protocols.synth import Roster, parse_roster

TOPIC = "When did the Tarn Valley tidal plant open?"
FALSE_SENTENCE = "The Tarn Valley tidal plant supplies power to roughly 900,000 homes."
DOCS = [
    Document(
        "tarn-official",
        "Tarn Valley tidal plant: official history",
        "The Tarn Valley tidal plant opened in 2016 after six years of construction. "
        "Its 24 turbines give the Tarn Valley tidal plant an installed capacity of 320 "
        "megawatts.\n\nThe Tarn Valley tidal plant supplies power to roughly 200,000 homes.",
    ),
    Document(
        "tarn-news",
        "Tarn Valley tidal plant at ten",
        "Engineers say the Tarn Valley tidal plant opened in 2016 after six years of "
        "construction. The Tarn Valley tidal plant supplies power to roughly 200,000 homes.\n\n"
        "A fish ladder was added to the Tarn Valley tidal plant in 2019.",
    ),
    Document(
        "tarn-rumour",
        "Tarn Valley tidal plant rumours",
        f"{FALSE_SENTENCE} Critics argue the Tarn Valley tidal plant barrage changed how "
        "silt settles in the estuary.",
    ),
    # Pages the searchers' topic search ranks lower: a fact-checker, who may not count the
    # author's own pages, finds its independent evidence here.
    Document(
        "tarn-grid",
        "Northern estuary grid operators",
        "The Tarn Valley tidal plant supplies power to roughly 200,000 homes across the "
        "estuary. Its output feeds the northern grid.",
    ),
    Document(
        "tarn-ladder",
        "Fish passage in tidal barrages",
        "A fish ladder was added to the Tarn Valley tidal plant in 2019. Salmon counts "
        "rose the following year.",
    ),
    Document(
        "tarn-silt",
        "Estuary sediment survey",
        "Critics argue the Tarn Valley tidal plant barrage changed how silt settles in the "
        "estuary. A survey measured the change.",
    ),
]


def settings_for(home: Path) -> Settings:
    return load_settings(home=home, allow_hosts=["127.0.0.0/8"])


def searcher(name: str, url: str, **extra: Any) -> dict[str, Any]:
    return {
        "name": name,
        "role": "SEARCHER",
        "can_search": True,
        "search_tool": "searxng",
        "searxng_url": url,
        **extra,
    }


def roster(lab: Lab, *extra: dict[str, Any], chief: str | None = None) -> Roster:
    agents = [
        {"name": "CC", "role": "MANAGER", "can_search": False},
        searcher("Codex", lab.sites[0]),
        searcher("Peer", lab.sites[1]),
        *extra,
    ]
    return parse_roster({"agents": agents, "chief_author": chief})
