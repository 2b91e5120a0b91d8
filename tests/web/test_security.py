"""`assay serve` under attack: its keys, its Host/Origin checks, its limits, its tokens."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path
from urllib.parse import urljoin, urlsplit

import pytest

import assay.models
from assay.config import load_settings
from assay.gather.session import GatherSession
from assay.keys import KeyStore
from assay.lab import Lab
from assay.store.runs import RunStore
from assay.web.app import ServerConfig, create_app
from tests.serve_fakes import asgi_call, recording_endpoint
from tests.web.test_api import TOPIC, api_client, lab_settings, run_async, wait_done

SERVER_KEY = "sk-server-Zq81ServerOwnKey"
OWN_KEY = "sk-request-Own7Key55abc"


def _home_files_with(home: Path, secret: str) -> list[str]:
    return [str(p) for p in home.rglob("*") if p.is_file() and secret.encode() in p.read_bytes()]


# 1: the server's key never goes to a URL a request names


def test_a_request_never_gets_the_servers_key_for_a_url_it_names(
    lab: Lab, isolated_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", SERVER_KEY)
    app = create_app(ServerConfig(lab_settings(lab, isolated_home)))
    with recording_endpoint() as fake, assay.models.model_requests_allowed(True):
        body = {"topic": TOPIC, "model": "openai:x", "base_url": f"{fake.url}/v1"}

        async def scenario() -> None:
            async with api_client(app) as client:
                lent = await client.post("/api/v1/runs", json=body)
                assert lent.status_code == 400, lent.text
                assert "api_key" in lent.json()["detail"]
                other_model = await client.post("/api/v1/runs", json={**body, "base_url": None})
                assert other_model.status_code == 400  # not offered: no key spent on it
                own = await client.post("/api/v1/runs", json={**body, "api_key": OWN_KEY})
                assert own.status_code == 202, own.text
                run_id = own.json()["id"]
                assert (await wait_done(client, run_id))["status"] != "running"
                # resuming it here would send the server's key to the run's endpoint
                resumed = await client.post(f"/api/v1/runs/{run_id}/resume")
                assert resumed.status_code == 400, resumed.text

        run_async(scenario)
    assert fake.authorizations(), "the run with its own key reached its own endpoint"
    assert set(fake.authorizations()) == {f"Bearer {OWN_KEY}"}
    assert _home_files_with(isolated_home, OWN_KEY) == []


def test_a_key_brought_for_a_private_endpoint_still_meets_the_address_guard(
    isolated_home: Path,
) -> None:
    settings = load_settings(home=isolated_home, search="local")  # no allow_hosts
    app = create_app(ServerConfig(settings))
    with recording_endpoint() as fake, assay.models.model_requests_allowed(True):
        body = {"topic": TOPIC, "model": "openai:x", "base_url": f"{fake.url}/v1",
                "api_key": OWN_KEY}  # fmt: skip

        async def scenario() -> None:
            async with api_client(app) as client:
                started = await client.post("/api/v1/runs", json=body)
                assert started.status_code == 202, started.text
                detail = await wait_done(client, started.json()["id"])
                assert detail["status"] == "failed"
                assert "loopback and not allow-listed" in detail["run"]["reason"]

        run_async(scenario)
    assert fake.requests == []


# 10: a request cannot point the server at a search endpoint


def test_a_request_cannot_choose_the_search_endpoint_or_provider(
    lab: Lab, isolated_home: Path
) -> None:
    app = create_app(ServerConfig(lab_settings(lab, isolated_home)))
    with recording_endpoint() as fake:

        async def scenario() -> None:
            async with api_client(app) as client:
                chosen = await client.post(
                    "/api/v1/runs", json={"topic": TOPIC, "searxng_url": fake.url}
                )
                assert chosen.status_code == 400, chosen.text
                other = await client.post("/api/v1/runs", json={"topic": TOPIC, "search": "brave"})
                assert other.status_code == 400
                same = await client.post(
                    "/api/v1/runs", json={"topic": TOPIC, "searxng_url": lab.sites[0] + "/"}
                )
                assert same.status_code == 202, same.text  # the server's own instance

        run_async(scenario)
    assert fake.requests == []


def test_a_search_endpoint_is_dialled_through_the_address_guard(
    isolated_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("BRAVE_API_KEY", "brave-test-key-123456")
    settings = load_settings(home=isolated_home, search="brave")
    run = RunStore(isolated_home, fsync=False).create("topic", "test", settings.snapshot())

    async def rebound(host: str) -> list[str]:
        return ["127.0.0.1"]  # api.search.brave.com, as a rebinding resolver answers it

    async def go() -> list[str]:
        keys = KeyStore(isolated_home)
        async with GatherSession(run, settings, keys=keys, resolver=rebound) as session:
            outcome = await session.search(["lighthouse height", "lighthouse", "tall tower"])
        return list(outcome.errors.values())

    errors = asyncio.run(go())
    assert errors and all("loopback and not allow-listed" in e for e in errors), errors


# 2: Host and Origin by parsed address

REBINDING = ["127.evil.example", "127.0.0.1.nip.io", "127.0.0.1.evil.example:80",
             "localhost.evil.example", "127.0.0.1:80@evil.example", ""]  # fmt: skip
LEGIT = ["127.0.0.1:8000", "[::1]:8000", "localhost:8000", "127.0.0.2", "LOCALHOST:1"]


def _app(home: Path, **config: object) -> object:
    return create_app(ServerConfig(load_settings(home=home), **config))  # type: ignore[arg-type]


@pytest.mark.parametrize("host", REBINDING)
def test_a_rebinding_host_is_refused(isolated_home: Path, host: str) -> None:
    answer = asyncio.run(asgi_call(_app(isolated_home), "GET", b"/api/v1/runs",
                                   headers=[(b"host", host.encode())]))  # fmt: skip
    assert answer.status == 421


@pytest.mark.parametrize("host", LEGIT)
def test_a_loopback_host_is_answered(isolated_home: Path, host: str) -> None:
    answer = asyncio.run(asgi_call(_app(isolated_home), "GET", b"/api/v1/runs",
                                   headers=[(b"host", host.encode())]))  # fmt: skip
    assert answer.status == 200 and answer.json() == []


def test_a_configured_public_name_is_answered_and_no_other(isolated_home: Path) -> None:
    app = _app(isolated_home, public_names=frozenset({"assay.example"}))
    for host, status in (("assay.example:8000", 200), ("assay.example", 200),
                         ("evil.example", 421), ("assay.example.evil.example", 421),
                         ("127.0.0.1:8000", 200)):  # fmt: skip
        answer = asyncio.run(
            asgi_call(app, "GET", b"/api/v1/runs", headers=[(b"host", host.encode())])
        )
        assert answer.status == status, host


def test_a_same_origin_post_under_a_rebinding_name_is_refused(isolated_home: Path) -> None:
    app = _app(isolated_home)

    def post(host: str, origin: str) -> int:
        headers = [(b"host", host.encode()), (b"origin", origin.encode()),
                   (b"content-type", b"application/json")]  # fmt: skip
        return asyncio.run(asgi_call(app, "POST", b"/api/v1/runs", headers=headers,
                                     chunks=[b"{}"])).status  # fmt: skip

    assert post("127.0.0.1.nip.io:8000", "http://127.0.0.1.nip.io:8000") == 421
    assert post("127.0.0.1:8000", "http://127.0.0.1:8000") == 422  # passed: the body is bad
    assert post("[::1]:8000", "http://[::1]:8000") == 422
    assert post("127.0.0.1:8000", "http://127.0.0.1:8001") == 403
    assert post("127.0.0.1:8000", "null") == 403


# 4: --max-runs holds when requests arrive together


def test_max_runs_holds_for_requests_that_arrive_together(lab: Lab, isolated_home: Path) -> None:
    app = create_app(ServerConfig(lab_settings(lab, isolated_home), max_runs=2))

    async def scenario() -> None:
        async with api_client(app) as client:
            answers = await asyncio.gather(
                *(client.post("/api/v1/runs", json={"topic": TOPIC}) for _ in range(12))
            )
            codes = sorted(a.status_code for a in answers)
            assert codes == [202] * 2 + [429] * 10, codes
            assert app.state.runs.working <= 2  # type: ignore[attr-defined]

    run_async(scenario)


# 11: the body limit holds while the body streams

CHUNK = b"x" * 65536
LIMIT = 1_048_576  # the server's default (web.security.MAX_BODY_BYTES)


def test_a_declared_huge_body_is_refused_unread(isolated_home: Path) -> None:
    headers = [(b"host", b"127.0.0.1:8000"), (b"content-type", b"application/json"),
               (b"content-length", b"104857600")]  # fmt: skip
    answer = asyncio.run(asgi_call(_app(isolated_home), "POST", b"/api/v1/runs",
                                   headers=headers, chunks=[CHUNK] * 40))  # fmt: skip
    assert answer.status == 413 and answer.chunks_read == 0


def test_a_streamed_body_is_cut_at_the_limit(isolated_home: Path) -> None:
    headers = [(b"host", b"127.0.0.1:8000"), (b"content-type", b"application/json"),
               (b"transfer-encoding", b"chunked")]  # fmt: skip
    answer = asyncio.run(asgi_call(_app(isolated_home), "POST", b"/api/v1/runs",
                                   headers=headers, chunks=[CHUNK] * 40))  # 2.5 MiB  # fmt: skip
    assert answer.status == 413
    assert answer.chunks_read == LIMIT // len(CHUNK) + 1  # stopped at the first over


# 12: tokens compared as bytes; the login redirect stays on this origin

TOKEN = "s3cret-token"


@pytest.mark.parametrize(
    "headers, path",
    [([(b"authorization", "Bearer é".encode())], b"/api/v1/runs"),
     ([(b"authorization", b"Bearer \xe9\xff")], b"/api/v1/runs"),
     ([], b"/api/v1/runs?token=%C3%A9"),
     ([(b"cookie", "assay_token=é".encode())], b"/api/v1/runs")],
)  # fmt: skip
def test_a_non_ascii_token_is_a_401(
    isolated_home: Path, headers: list[tuple[bytes, bytes]], path: bytes
) -> None:
    app = _app(isolated_home, token=TOKEN)
    answer = asyncio.run(asgi_call(app, "GET", path, headers=[(b"host", b"a.example"), *headers]))
    assert answer.status == 401


@pytest.mark.parametrize(
    "raw_path",
    [b"/%5C127.0.0.2:9/x", b"//evil.example/x", b"/%2F%2Fevil.example/x", b"/%5C%5Cevil.example",
     b"/%09/evil.example", b"/\\/evil.example", b"/%5C/evil.example", b"/runs/abc"],
)  # fmt: skip
def test_the_token_login_redirects_only_within_the_origin(
    isolated_home: Path, raw_path: bytes
) -> None:
    app = _app(isolated_home, token=TOKEN)
    answer = asyncio.run(asgi_call(app, "GET", raw_path + b"?token=" + TOKEN.encode() + b"&a=1",
                                   headers=[(b"host", b"127.0.0.1:8000")]))  # fmt: skip
    assert answer.status == 303
    location = answer.headers["location"]
    assert location.startswith("/") and location[1:2] not in ("/", "\\"), location
    assert all(c.isprintable() and c not in " \\" for c in location), location
    assert urlsplit(urljoin("http://127.0.0.1:8000/", location)).netloc == "127.0.0.1:8000"
    assert TOKEN not in location and location.endswith("?a=1")


# 16: no filesystem path in an answer


def test_a_404_names_no_path_and_a_huge_id_is_a_404(isolated_home: Path) -> None:
    (isolated_home / "runs").mkdir()
    os.symlink("/etc", isolated_home / "runs" / "link")
    app = _app(isolated_home)
    host = [(b"host", b"127.0.0.1:8000")]
    for path in (b"/api/v1/runs/link", b"/runs/link", b"/api/v1/runs/" + b"a" * 300):
        answer = asyncio.run(asgi_call(app, "GET", path, headers=host))
        assert answer.status == 404, path
        assert str(isolated_home) not in answer.body.decode() and "/tmp" not in answer.body.decode()


def test_serve_offers_what_its_allow_options_name(monkeypatch: pytest.MonkeyPatch) -> None:
    import uvicorn
    from typer.testing import CliRunner

    from assay.cli import app as cli

    served: dict[str, object] = {}
    monkeypatch.setattr(uvicorn.Server, "run", lambda server, sockets=None: served.update(
        app=server.config.app))  # fmt: skip
    args = ["serve", "--model", "openai:own", "--allow-model", "anthropic:other",
            "--allow-base-url", "http://127.0.0.1:9/v1", "--allow-search", "duckduckgo",
            "--public-name", "Assay.Example", "--port", "0"]  # fmt: skip
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 0, result.output
    web = served["app"]
    choices = web.state.runs.choices  # type: ignore[attr-defined]
    assert choices.models == {"openai:own", "anthropic:other"}
    assert choices.base_urls == {"http://127.0.0.1:9/v1"}
    assert choices.searches == {"local", "duckduckgo"}
    answer = asyncio.run(asgi_call(web, "GET", b"/api/v1/runs",
                                   headers=[(b"host", b"assay.example:8000")]))  # fmt: skip
    assert answer.status == 200


def test_offered_choices_pair_each_endpoint_with_its_provider(isolated_home: Path) -> None:
    from assay.errors import BadInputError
    from assay.protocols.launch import StartRun
    from assay.protocols.served import ServedChoices

    base = load_settings(home=isolated_home, model="openai:own", base_url="http://vllm.lab/v1")
    offered = ServedChoices.offered(
        base, models=["anthropic:c", "openai:other"], base_urls=["http://gpu.lab:8000/v1/"]
    )

    def resolved(**fields: object) -> tuple[str | None, str | None, str | None]:
        served = offered.resolve(StartRun(topic="t", **fields), base)  # type: ignore[arg-type]
        return served.settings.model, served.settings.base_url, served.key

    assert resolved() == ("openai:own", "http://vllm.lab/v1", None)
    assert resolved(model="openai:other") == ("openai:other", "http://vllm.lab/v1", None)
    assert resolved(model="anthropic:c") == ("anthropic:c", None, None)  # not vllm's endpoint
    assert resolved(model="OpenAI:other", base_url="HTTP://gpu.lab:8000/v1") == (
        "OpenAI:other", "HTTP://gpu.lab:8000/v1", None)  # fmt: skip
    mine = resolved(model="openai:x", base_url="http://mine.example/v1", api_key="k" * 12)
    assert mine == ("openai:x", "http://mine.example/v1", "k" * 12)
    for refused in ({"model": "openai:x"}, {"base_url": "http://mine.example/v1"},
                    {"api_key": "k" * 12}, {"protocol": "synth", "model": "openai:x",
                                            "api_key": "k" * 12}):  # fmt: skip
        with pytest.raises(BadInputError):
            resolved(**refused)
