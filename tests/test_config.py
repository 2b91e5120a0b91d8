"""Configuration precedence, secret references and the key store."""

from __future__ import annotations

import json
import stat
from pathlib import Path

import pytest
from typer.testing import CliRunner

from assay.cli import app
from assay.config import load_settings
from assay.errors import ConfigError, MissingKeyError
from assay.events import WarningEvent
from assay.keys import KeyStore
from assay.store.runs import RunStore

SECRET = "sk-test-9f8e7d6c5b4a"


def test_precedence_defaults_file_env_flags(
    isolated_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert load_settings().search == "local"
    (isolated_home / "config.toml").write_text(
        'search = "searxng"\nmax_results = 5\n[fetch]\nmin_domain_interval = 2.5\n'
    )
    settings = load_settings()
    assert (settings.search, settings.max_results, settings.fetch.min_domain_interval) == (
        "searxng",
        5,
        2.5,
    )
    monkeypatch.setenv("ASSAY_SEARCH", "brave")
    monkeypatch.setenv("ASSAY_FETCH__MIN_DOMAIN_INTERVAL", "3")
    settings = load_settings()
    assert (settings.search, settings.max_results, settings.fetch.min_domain_interval) == (
        "brave",
        5,
        3.0,
    )
    assert load_settings(search="tavily").search == "tavily"


def test_home_flag_chooses_the_config_file(tmp_path: Path) -> None:
    other = tmp_path / "other"
    other.mkdir()
    (other / "config.toml").write_text('search = "exa"\n')
    settings = load_settings(home=other)
    assert settings.home == other and settings.search == "exa"


def test_allow_hosts_from_environment_is_a_list(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ASSAY_ALLOW_HOSTS", '["127.0.0.0/8", "lab.test"]')
    assert load_settings().allow_hosts == ["127.0.0.0/8", "lab.test"]


@pytest.mark.parametrize(
    ("toml", "fragment"),
    [
        ('[keys]\nBRAVE_API_KEY = "abc123secret"\n', "literal value"),
        ("search = [\n", "not valid TOML"),
        ("max_results = 0\n", "max_results"),
        ("[fetch]\nmin_domain_interval = 0.2\n", "fetch.min_domain_interval"),
        ("nonsense = 1\n", "nonsense"),
    ],
)
def test_bad_config_is_a_one_line_config_error(
    isolated_home: Path, toml: str, fragment: str
) -> None:
    (isolated_home / "config.toml").write_text(toml)
    with pytest.raises(ConfigError) as caught:
        load_settings()
    assert fragment in str(caught.value)
    assert "\n" not in str(caught.value)
    assert "abc123secret" not in str(caught.value)


def test_key_resolution_order(
    isolated_home: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    secret_file = tmp_path / "tok"
    secret_file.write_text("from-file-value\n")
    store = KeyStore(isolated_home, {"EXA_API_KEY": f"$file:{secret_file}"})
    assert store.get("BRAVE_API_KEY") is None
    monkeypatch.setenv("BRAVE_API_KEY", "from-env-value")
    assert store.get("BRAVE_API_KEY") == "from-env-value"
    store.save("BRAVE_API_KEY", "from-store-value")
    assert store.get("BRAVE_API_KEY") == "from-store-value"
    assert store.get("BRAVE_API_KEY", explicit="explicit-value") == "explicit-value"
    assert store.get("EXA_API_KEY") == "from-file-value"
    assert stat.S_IMODE(store.path.stat().st_mode) == 0o600
    with pytest.raises(MissingKeyError) as caught:
        store.require("TAVILY_API_KEY", "tavily")
    assert "TAVILY_API_KEY" in str(caught.value) and "assay keys set" in str(caught.value)


def test_env_key_never_reaches_run_files_or_config_show(
    isolated_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("BRAVE_API_KEY", SECRET)
    (isolated_home / "config.toml").write_text('[keys]\nBRAVE_API_KEY = "$env:BRAVE_API_KEY"\n')
    settings = load_settings()
    keys = KeyStore(settings.home, settings.keys)
    store = RunStore(settings.home, fsync=False, secrets=frozenset(keys.known_secret_values()))
    run = store.create("topic", "research", settings.snapshot())
    run.events.emit(WarningEvent(message=f"provider said: bad key {SECRET}"))
    run.finish("done")
    for name in ("run.json", "run.log.jsonl"):
        assert SECRET not in (run.dir / name).read_text()
    assert "****" in (run.dir / "run.log.jsonl").read_text()

    result = CliRunner().invoke(app, ["config", "show"])
    assert result.exit_code == 0, result.output
    assert SECRET not in result.output
    assert "$env:BRAVE_API_KEY (set)" in result.output
    shown = CliRunner().invoke(app, ["config", "show", "--json"])
    assert SECRET not in shown.output
    assert json.loads(shown.output)["keys"]["BRAVE_API_KEY"] == "$env:BRAVE_API_KEY (set)"


def test_keys_cli_stores_and_lists_names_only(isolated_home: Path) -> None:
    runner = CliRunner()
    result = runner.invoke(app, ["keys", "set", "SERPER_API_KEY"], input=SECRET + "\n")
    assert result.exit_code == 0, result.output
    listed = runner.invoke(app, ["keys", "list"])
    assert listed.output.strip() == "SERPER_API_KEY"
    shown = runner.invoke(app, ["config", "show"])
    assert SECRET not in shown.output and "SERPER_API_KEY" in shown.output
    assert runner.invoke(app, ["keys", "remove", "SERPER_API_KEY"]).exit_code == 0
    missing = runner.invoke(app, ["keys", "remove", "SERPER_API_KEY"])
    assert missing.exit_code == 2 and "no stored key" in missing.output


def test_built_in_plugins_register_through_entry_points() -> None:
    from assay.plugins import MODELS_GROUP, SEARCH_GROUP, load_plugin

    shown = json.loads(CliRunner().invoke(app, ["config", "show", "--json"]).output)["plugins"]
    assert set(shown) == {"search", "models", "protocols"}
    assert shown["protocols"] == ["research", "ask", "web-research", "deep", "synth"]
    assert {"searxng", "local", "mcp"} <= set(shown["search"])
    assert shown["models"] == ["anthropic", "llamacpp", "lmstudio", "ollama", "openai"]
    for group in (SEARCH_GROUP, MODELS_GROUP):
        for name in shown[group.removeprefix("assay.")]:
            assert callable(load_plugin(group, name)), (group, name)
    with pytest.raises(ConfigError, match="unknown search plugin 'nope'"):
        load_plugin(SEARCH_GROUP, "nope")
