"""A third-party plugin of each kind, typed against ``assay``'s exports and loaded by entry point.

The plugins are written to ``tmp_path`` as a distribution would install them: the
packages plus a ``.dist-info`` folder whose ``entry_points.txt`` registers them; putting
that folder on ``sys.path`` is all ``importlib.metadata`` needs.
"""

from __future__ import annotations

import asyncio
import importlib
import subprocess
import sys
from pathlib import Path

import httpx2
import pytest

import assay
from assay.config import load_settings
from assay.gather.search.registry import build_search_provider
from assay.keys import KeyStore
from assay.models.registry import resolve_model
from tests.paths import TESTS

SEARCH_PLUGIN = """\
from __future__ import annotations

import httpx2

from assay import KeyStore, SearchProvider, SearchProviderFactory, SearchResult, Settings


class AcmeSearch:
    name = "acme"

    async def search(
        self, queries: list[str], *, max_results: int, time_range: str | None = None
    ) -> list[SearchResult]:
        return [
            SearchResult(query=q, title=f"About {q}", url=f"https://acme.test/{rank}",
                         snippet=q, provider=self.name, rank=rank)
            for q in queries
            for rank in range(1, max_results + 1)
        ]


def create(settings: Settings, *, http: httpx2.AsyncClient, keys: KeyStore) -> SearchProvider:
    return AcmeSearch()


CONTRACT: SearchProviderFactory = create
"""

MODEL_PLUGIN = """\
from __future__ import annotations

from assay import Model, ModelFactory, ModelOptions, ModelProfile, ModelReply, ModelRequest


class AcmeModel(Model):
    async def request(self, request: ModelRequest) -> ModelReply:
        return ModelReply(text=f"acme heard: {request.prompt}", input_tokens=3, output_tokens=2)


def create(name: str, options: ModelOptions) -> Model:
    return AcmeModel(f"acme:{name}", ModelProfile(max_tokens=64))


CONTRACT: ModelFactory = create
"""

# Proves the type check can fail: a provider whose search returns the wrong type, and
# calls that the sync API's typed keywords reject.
BROKEN_PLUGIN = """\
from __future__ import annotations

from assay import SearchProviderFactory, research, web_research


def misuse() -> None:
    research("tides", sources="five")
    web_research("tides", keywords=["tide"], serch="local")


class Wrong:
    name = "wrong"

    async def search(self, queries: list[str], *, max_results: int) -> list[str]:
        return queries


def create() -> Wrong:
    return Wrong()


CONTRACT: SearchProviderFactory = create
"""

# The protocol plugin tests/protocols/test_registry.py runs through every interface.
PROTOCOL_PLUGIN = (TESTS / "toy_protocol.py").read_text(encoding="utf-8")

ENTRY_POINTS = """\
[assay.search]
acme = acme_search:create

[assay.models]
acme = acme_model:create
"""


@pytest.fixture
def site(tmp_path: Path) -> Path:
    """A folder laid out like site-packages after installing the plugins."""
    root = tmp_path / "site"
    for package, source in (
        ("acme_search", SEARCH_PLUGIN),
        ("acme_model", MODEL_PLUGIN),
        ("acme_broken", BROKEN_PLUGIN),
        ("acme_protocol", PROTOCOL_PLUGIN),
    ):
        (root / package).mkdir(parents=True)
        (root / package / "__init__.py").write_text(source, encoding="utf-8")
        (root / package / "py.typed").write_text("", encoding="utf-8")
    dist = root / "acme_plugins-0.1.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text(
        "Metadata-Version: 2.1\nName: acme-plugins\nVersion: 0.1\n", encoding="utf-8"
    )
    (dist / "entry_points.txt").write_text(ENTRY_POINTS, encoding="utf-8")
    return root


def test_the_plugin_contracts_are_public() -> None:
    for name in ("SearchProvider", "SearchProviderFactory", "SearchResult", "Model",
                 "ModelFactory", "ModelOptions", "ModelProfile", "ModelRequest", "ModelReply",
                 "ScriptedModel", "ProtocolSpec", "ProtocolRequest", "ProtocolResult",
                 "RunEnv", "run_protocol"):  # fmt: skip
        assert name in assay.__all__ and getattr(assay, name) is not None
    assert (Path(assay.__file__).parent / "py.typed").is_file()


@pytest.mark.slow
def test_plugins_type_check_strictly_against_assay(site: Path, pytestconfig: pytest.Config) -> None:
    # mypy's cache of assay and its dependencies lives in pytest's cache folder: a first run
    # reads every source (about 10 s), a later one only what changed (mypy checks the hashes).
    kept = getattr(pytestconfig, "cache", None)  # absent under -p no:cacheprovider: a cold cache
    cache = kept.mkdir("plugin-contracts-mypy") if kept else site / ".mypy_cache"
    done = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--follow-imports=silent",
         "--cache-dir", str(cache), "-p", "acme_search", "-p", "acme_model", "-p", "acme_broken",
         "-p", "acme_protocol"],
        cwd=site, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    errors = [line for line in done.stdout.splitlines() if ": error:" in line]
    assert errors, done.stdout + done.stderr  # the broken plugin is caught...
    assert all(line.startswith("acme_broken") for line in errors), errors  # ...only it
    assert any('"sources"' in e and "incompatible type" in e for e in errors), errors
    assert any('Unexpected keyword argument "serch"' in e for e in errors), errors


def test_plugins_load_through_their_entry_points(
    site: Path, isolated_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.syspath_prepend(str(site))
    importlib.invalidate_caches()
    settings = load_settings(search="acme")
    keys = KeyStore(settings.home, settings.keys)

    async def search() -> list[assay.SearchResult]:
        async with httpx2.AsyncClient() as http:
            provider = build_search_provider(settings, http=http, keys=keys)
            return await provider.search(["tides"], max_results=2)

    results = asyncio.run(search())
    assert [(r.provider, r.url) for r in results] == [
        ("acme", "https://acme.test/1"),
        ("acme", "https://acme.test/2"),
    ]
    model = resolve_model("acme:tiny")
    assert model.name == "acme:tiny" and model.profile.max_tokens == 64
    request = assay.ModelRequest(
        system="", messages=(), output=None, mode="prompted_json", max_tokens=8, timeout=1.0
    )
    reply = asyncio.run(model.request(request))
    assert reply.text == "acme heard: "
