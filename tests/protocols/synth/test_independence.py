"""search-synth's fact-checks are independent of the author, and an assertion no source
supports is never credited to a source (over the tarn lab, real HTTP, extractive engine)."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from assay.lab import Lab, serve_lab
from assay.protocols.synth import synth_async
from assay.store.claims import ClaimLedger
from assay.store.sources import SourceLedger
from tests.synth_support import DOCS, TOPIC, roster, searcher, settings_for

INVENTED = "Alexander Graham Bell invented the telephone in 1876 and lives on the Moon"
INVENTING_AGENT = f"""
import re, sys
prompt = sys.stdin.read()
print("{INVENTED} [1].")
print("")
print("The Tarn Valley tidal plant supplies power to roughly 200,000 homes [1].")
"""


@pytest.fixture(scope="module")
def tarn() -> Iterator[Lab]:
    with serve_lab(DOCS, sites=6, faults=False, first_address="127.0.0.46") as running:
        yield running


def _run(home: Path, lab: Lab, *extra: dict[str, object]) -> tuple[Path, str]:
    out = home / "out" / "synth.md"
    result = asyncio.run(
        synth_async(TOPIC, roster=roster(lab, *extra), output=out, settings=settings_for(home))
    )
    assert result.signal == "[DONE]", result.reason
    return Path(result.run_dir), Path(result.output).read_text()


def test_a_checker_never_counts_the_page_the_assertion_cites(
    tarn: Lab, isolated_home: Path
) -> None:
    run_dir, text = _run(isolated_home, tarn)
    sources = {r.id: r for r in SourceLedger(run_dir).records()}
    claims = ClaimLedger(run_dir).claims()

    def hosts(ids: list[str]) -> set[str]:
        return {h for h in (urlsplit(sources[s].url).hostname for s in ids) if h}

    cited = {(c.created_by, c.text): hosts(c.source_ids) for c in claims}
    checks = [c for c in claims if " fact-check of " in c.created_by]
    assert checks
    for check in checks:
        author = check.created_by.rsplit(" ", 1)[-1]
        read = hosts(check.source_ids)
        assert not read & cited[(author, check.text)], (check.id, read)
    verified = [line for line in text.splitlines() if "| VERIFIED |" in line]
    assert verified  # independent pages still verify what they say


def test_an_invented_claim_is_listed_with_no_source(
    tarn: Lab, isolated_home: Path, tmp_path: Path
) -> None:
    script = tmp_path / "agent.py"
    script.write_text(INVENTING_AGENT)
    gem = searcher("Gem", tarn.sites[2], command=[sys.executable, str(script)])
    _, text = _run(isolated_home, tarn, gem)
    unverified = text.split("### Unverified Claims")[1]
    line = next(x for x in unverified.splitlines() if "lives on the Moon" in x)
    assert "Asserted by Gem; no source found" in line
    assert "Reported by" not in line and "http" not in line
    assert "lives on the Moon" not in text.split("## Phase 3")[1].split("### Unverified")[0]
