"""No key in any file of a run or on the terminal, however it leaked into a message."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from typer.testing import CliRunner

import assay.protocols.runner as runner_module
from assay.cli.app import app
from assay.config import Settings, load_settings
from assay.errors import ProviderError
from assay.keys import KeyStore
from assay.models import Model
from assay.models.testing import ScriptedModel
from assay.protocols.research import research_async
from assay.redact import redact, register_secrets
from assay.store.atomic import atomic_write_text
from assay.store.jsonl import append_jsonl, read_jsonl

KEY = "sk-proj-Zq81LeakedKey77x"


def _rejecting_model() -> ScriptedModel:
    """A model endpoint that answers as real providers do to a wrong key."""
    message = f"HTTP 401: Incorrect API key provided: {KEY}. You can find your API key at …"
    return ScriptedModel(lambda request: ProviderError(message))


def _files_with_key(home: Path) -> list[str]:
    return [
        str(p.relative_to(home))
        for p in home.rglob("*")
        if p.is_file() and p.name != "keys.json" and KEY.encode() in p.read_bytes()
    ]


def _settings(home: Path) -> Settings:
    return load_settings(home=home)


def test_a_stored_key_echoed_by_a_provider_reaches_no_run_file(isolated_home: Path) -> None:
    KeyStore(isolated_home).save("OPENAI_API_KEY", KEY)
    with pytest.raises(ProviderError):
        asyncio.run(
            research_async("Halvorsen Lighthouse", settings=_settings(isolated_home),
                           model=_rejecting_model())
        )  # fmt: skip
    run_json = next(isolated_home.glob("runs/*/run.json")).read_text(encoding="utf-8")
    assert "****" in run_json  # the reason is kept, with the key masked
    assert _files_with_key(isolated_home) == []


@pytest.mark.parametrize("source", ["keys-set", "environment"])
def test_the_cli_error_line_never_shows_the_key(
    isolated_home: Path, monkeypatch: pytest.MonkeyPatch, source: str
) -> None:
    if source == "keys-set":
        assert (
            CliRunner().invoke(app, ["keys", "set", "OPENAI_API_KEY"], input=KEY + "\n").exit_code
            == 0
        )
    else:
        monkeypatch.setenv("OPENAI_API_KEY", KEY)

    def scripted(settings: Settings, keys: KeyStore) -> Model:
        return _rejecting_model()

    monkeypatch.setattr(runner_module, "model_from_settings", scripted)
    result = CliRunner().invoke(app, ["research", "Halvorsen Lighthouse", "--quiet"])
    assert result.exit_code != 0
    assert "Incorrect API key provided: ****" in result.output
    assert KEY not in result.output
    assert _files_with_key(isolated_home) == []


def test_the_write_primitives_mask_registered_secrets(tmp_path: Path) -> None:
    register_secrets([KEY, "short"])
    atomic_write_text(tmp_path / "plan.md", f"key={KEY}")
    append_jsonl(tmp_path / "claims.jsonl", {"quote": f"the key {KEY} was here"})
    assert (tmp_path / "plan.md").read_text(encoding="utf-8") == "key=****"
    assert read_jsonl(tmp_path / "claims.jsonl").records == [{"quote": "the key **** was here"}]
    assert redact("short stays") == "short stays"  # too short to remove from text safely


def test_the_key_store_itself_keeps_the_key(isolated_home: Path) -> None:
    store = KeyStore(isolated_home)
    store.save("BRAVE_API_KEY", KEY)
    assert KeyStore(isolated_home).get("BRAVE_API_KEY") == KEY
