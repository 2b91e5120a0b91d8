"""The README's first command runs with networking off, on the bundled embedding model."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.paths import ROOT


def offline_works() -> bool:
    unshare = shutil.which("unshare")
    if unshare is None:
        return False
    probe = subprocess.run([unshare, "-n", "true"], capture_output=True, check=False)
    return probe.returncode == 0


@pytest.mark.slow
@pytest.mark.skipif(not offline_works(), reason="unshare -n (a network namespace) is not allowed")
def test_the_first_command_runs_with_no_network(tmp_path: Path) -> None:
    env = {**os.environ, "ASSAY_HOME": str(tmp_path / "home")}
    assay = [sys.executable, "-m", "assay.cli"]

    def offline(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            ["unshare", "-n", *assay, *args], cwd=ROOT, env=env, capture_output=True,
            text=True, timeout=240, check=False,
        )  # fmt: skip

    indexed = offline("index", "add", "README.md", "docs/")
    assert indexed.returncode == 0, indexed.stderr
    asked = offline("research", "How does assay verify a claim?", "--json")
    assert asked.returncode == 0, asked.stderr
    result = json.loads(asked.stdout)
    run_dir = Path(result["run_dir"])
    claims = [json.loads(line) for line in (run_dir / "claims.jsonl").read_text().splitlines()]
    # relevance was read by meaning, so the embedding model ran inside the namespace
    assert claims and all(c["relevance"]["method"] == "meaning-v1" for c in claims)
    answer = result["answer"]  # the README promises a direct answer
    assert answer and "No direct answer" not in answer
    assert "verif" in answer.lower() and "claim" in answer.lower()
