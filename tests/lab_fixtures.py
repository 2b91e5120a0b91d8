"""Pytest plugin: the local web lab over a small generated corpus.

Enable with ``pytest_plugins = ["lab_fixtures"]`` in conftest.py. Fixtures (session-scoped,
so the servers start once):

- ``lab_corpus_dir``: a folder of 30 Markdown/text files on five fictional topics.
- ``lab``: that corpus served as 3 sites with faults on (robots.txt normal everywhere).
- ``lab_robots``: the same corpus, 3 sites, where site 2's /robots.txt answers 404 and
  site 3's answers 500 (site 1 is normal).
- ``own_lab`` (module-scoped): 3 sites of the module's own, so the connections it holds
  open (``Lab.open_connections``; ``connections_left`` waits for them to close) are only
  that module's; ``unraisable`` lists what ``__del__`` methods reported meanwhile (an
  unclosed socket's ResourceWarning).

The stateful faults (/fault/429, /fault/500) count per (client address, request target,
query included): use a query string of your own (``/fault/429?case=retry``) to get fresh
counters, or call ``lab.reset()`` (which also clears ``lab.hits()``).
"""

from __future__ import annotations

import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from assay.lab import Lab, serve_lab

TOPICS: dict[str, list[str]] = {
    "Halvorsen Lighthouse": [
        "The Halvorsen Lighthouse stands on the northern cape of Skarvik Island.",
        "Construction of the Halvorsen Lighthouse was completed in 1874.",
        "Its tower is 41 metres tall and is built of local grey granite.",
        "The original lamp burned whale oil until it was converted to kerosene in 1902.",
        "The light was automated in 1987, and the last keeper, Ingrid Moe, retired that year.",
        "On a clear night its beam can be seen from 22 nautical miles away.",
        "The keeper's cottage now houses a small maritime museum.",
    ],
    "Velmar honeybee": [
        "The Velmar honeybee is a mountain subspecies found in the Orsa highlands.",
        "Velmar colonies survive winters of minus 30 degrees by clustering tightly.",
        "A healthy Velmar colony holds around 40,000 workers at midsummer.",
        "Velmar bees forage mostly on heather and wild thyme.",
        "The subspecies was first described by the entomologist Lars Brekke in 1931.",
        "Varroa mites reached the Orsa highlands in 2009 and cut colony numbers by a third.",
        "Beekeepers in the region harvest about 12 kilograms of honey per hive each year.",
    ],
    "Tarn Valley tidal plant": [
        "The Tarn Valley tidal plant generates electricity from the tides of the Tarn estuary.",
        "The plant opened in 2016 after six years of construction.",
        "Its 24 turbines give it an installed capacity of 320 megawatts.",
        "The tidal range in the Tarn estuary reaches 11 metres at spring tides.",
        "The plant supplies power to roughly 200,000 homes.",
        "A fish ladder was added in 2019 after salmon numbers fell below the river.",
        "Critics argue the barrage has changed how silt settles in the estuary.",
    ],
    "Kessler sourdough": [
        "Kessler sourdough is a rye bread from the town of Kessler.",
        "The Kessler starter is said to have been kept alive since 1790.",
        "The dough ferments for 18 hours at a cool room temperature.",
        "Traditional loaves contain caraway seeds and a little dark malt.",
        "The Kessler bakers' guild registered the bread's name in 2004.",
        "A standard loaf weighs one kilogram and keeps for about a week.",
        "The bread is baked in wood-fired ovens at around 250 degrees Celsius.",
    ],
    "Mount Oskar volcano": [
        "Mount Oskar is a stratovolcano in the Brenna range.",
        "Its summit rises 2,870 metres above sea level.",
        "The last major eruption of Mount Oskar happened in 1911.",
        "The 1911 eruption buried the village of Tessel under ash.",
        "A seismic observatory has monitored the volcano since 1958.",
        "Geologists rate the chance of an eruption this century as low.",
        "Hot springs on the eastern flank attract hikers every summer.",
    ],
}
ANGLES = (
    "overview",
    "history",
    "facts and figures",
    "a visitor's guide",
    "open questions",
    "in depth",
)


def write_lab_corpus(directory: Path) -> list[Path]:
    """Write the 30-document corpus (five topics × six angles) into ``directory``."""
    directory.mkdir(parents=True, exist_ok=True)
    written = []
    for t, (topic, facts) in enumerate(TOPICS.items()):
        for a, angle in enumerate(ANGLES):
            rotated = facts[a % len(facts) :] + facts[: a % len(facts)]
            paragraphs = [
                " ".join(rotated[0:3]),
                " ".join(rotated[3:5]) + f" This {angle} piece is part {a + 1} of six.",
                " ".join(rotated[5:]),
            ]
            title = f"{topic}: {angle}"
            if (t + a) % 2:
                path = directory / f"{t}-{a}.md"
                path.write_text(f"# {title}\n\n" + "\n\n".join(paragraphs) + "\n", encoding="utf-8")
            else:
                path = directory / f"{t}-{a}.txt"
                path.write_text(f"{title}\n\n" + "\n\n".join(paragraphs) + "\n", encoding="utf-8")
            written.append(path)
    return written


@pytest.fixture(scope="session")
def lab_corpus_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    directory = tmp_path_factory.mktemp("lab-corpus")
    write_lab_corpus(directory)
    return directory


@pytest.fixture(scope="session")
def lab(lab_corpus_dir: Path) -> Iterator[Lab]:
    with serve_lab(lab_corpus_dir, sites=3, faults=True) as running:
        yield running


@pytest.fixture(scope="session")
def lab_robots(lab_corpus_dir: Path) -> Iterator[Lab]:
    with serve_lab(lab_corpus_dir, sites=3, faults=True, robots_status={2: 404, 3: 500}) as running:
        yield running


@pytest.fixture(scope="module")
def own_lab(lab_corpus_dir: Path) -> Iterator[Lab]:
    with serve_lab(lab_corpus_dir, sites=3) as running:
        yield running


def connections_left(lab: Lab, within: float = 2.0) -> int:
    """The lab's open connections once they are 0, or after ``within`` seconds: a client
    that closed them is done at once, one that forgot them waits for the garbage collector."""
    deadline = time.monotonic() + within
    while lab.open_connections() and time.monotonic() < deadline:
        time.sleep(0.02)
    return lab.open_connections()


@pytest.fixture
def unraisable(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    seen: list[str] = []
    monkeypatch.setattr(sys, "unraisablehook", lambda u: seen.append(repr(u.exc_value)))
    return seen
