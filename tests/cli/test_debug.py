"""``assay --debug`` shows the traceback, and never a key or a credential in it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from assay.cli.app import app

KEY = "sk-proj-Zq81LeakedKey77x"
TOKEN = "ghp_UnregisteredToken1234"

# The CLI as the console script runs it, with the model replaced by one that fails as a
# provider does: the failure's message quotes what the script was given.
_SCRIPT = """
import sys
import assay.protocols.runner as runner
from assay.models.testing import ScriptedModel

failure = eval(sys.argv[1])
runner.model_from_settings = lambda settings, keys: ScriptedModel(lambda request: failure)
sys.argv = ["assay", *sys.argv[2:]]
from assay.cli.app import main
main()
"""


def _assay(home: Path, failure: str, *args: str, env: dict[str, str] | None = None) -> str:
    environment = {**os.environ, "ASSAY_HOME": str(home), **(env or {})}
    done = subprocess.run(
        [sys.executable, "-c", _SCRIPT, failure, *args],
        capture_output=True, text=True, env=environment, timeout=120, check=False,
    )  # fmt: skip
    return f"exit {done.returncode}\n{done.stdout}{done.stderr}"


PROVIDER_401 = f"__import__('assay.errors').errors.ProviderError('HTTP 401: bad key {KEY}')"


@pytest.mark.parametrize("source", ["environment", "key-store"])
def test_the_debug_traceback_masks_the_key(isolated_home: Path, source: str) -> None:
    env = {"OPENAI_API_KEY": KEY} if source == "environment" else {}
    if source == "key-store":
        stored = CliRunner().invoke(app, ["keys", "set", "OPENAI_API_KEY"], input=KEY + "\n")
        assert stored.exit_code == 0
    output = _assay(isolated_home, PROVIDER_401, "--debug", "research", "Halvorsen", "-q", env=env)
    assert output.startswith("exit 1\n")  # a provider error's exit code
    assert "Traceback (most recent call last)" in output
    assert "ProviderError: HTTP 401: bad key ****" in output
    assert KEY not in output


def test_a_bug_s_traceback_masks_an_authorization_header(isolated_home: Path) -> None:
    bug = f"RuntimeError(\"request failed: headers={{'Authorization': 'Bearer {TOKEN}'}}\")"
    output = _assay(isolated_home, bug, "--debug", "research", "Halvorsen", "-q")
    assert output.startswith("exit 1\n")
    assert "'Authorization': 'Bearer ****'" in output
    assert TOKEN not in output
