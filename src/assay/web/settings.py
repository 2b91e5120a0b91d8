"""The settings page: the server's effective configuration (secret values never shown,
its home written ``$ASSAY_HOME``), which provider keys are present and where from, the
search providers and what each still needs, what requests may choose, and the hosts runs
may reach. Keys can be stored or removed here (``PUT``/``DELETE /api/v1/keys/{name}``)
only by someone who reached the server on loopback or with its token; through a public
name without a token the page is read-only."""

from __future__ import annotations

import re
from typing import Any

from fastapi import APIRouter, Request, Response
from fastapi.responses import HTMLResponse
from pydantic import BaseModel, Field, SecretStr

from assay.config_view import effective_config, key_states
from assay.errors import BadInputError, UserError
from assay.keys import KeyStore
from assay.web.render import render, setting_text
from assay.web.runs import manager
from assay.web.security import Guard, is_loopback, parse_host

router = APIRouter(include_in_schema=False)
api = APIRouter(prefix="/api/v1", tags=["settings"])
_KEY_NAME = re.compile(r"[A-Z][A-Z0-9_]{1,63}")


class NotAllowed(UserError):
    """A change this visitor may not make (read-only settings)."""


class KeyValue(BaseModel):
    """A key's value: stored in keys.json (mode 0600), never shown again."""

    value: SecretStr = Field(min_length=1, max_length=500)


def may_change(request: Request) -> bool:
    """On loopback, or with the token (every request to a server with one carries it)."""
    guard: Guard = request.app.state.guard
    if guard.token is not None:
        return True
    parsed = parse_host(request.headers.get("host", ""))
    return parsed is not None and is_loopback(parsed[0])


def _changeable_key(request: Request, name: str) -> KeyStore:
    if not may_change(request):
        raise NotAllowed(
            "settings are read-only here: use the server on loopback or with its token"
        )
    settings = manager(request).settings
    if not _KEY_NAME.fullmatch(name) or name not in {k.name for k in key_states(settings)}:
        raise BadInputError(f"{name[:64]!r} is not a key assay reads (see the settings page)")
    return KeyStore(settings.home, settings.keys)


@api.put("/keys/{name}", status_code=204, response_class=Response)
def store_key(name: str, body: KeyValue, request: Request) -> Response:
    """Store a provider key (e.g. BRAVE_API_KEY) for the runs this server starts next."""
    _changeable_key(request, name).save(name, body.value.get_secret_value())
    return Response(status_code=204)


@api.delete("/keys/{name}", status_code=204, response_class=Response)
def remove_key(name: str, request: Request) -> Response:
    """Remove a stored key (one from the environment or config stays where it is)."""
    if not _changeable_key(request, name).remove(name):
        raise BadInputError(f"no stored key named {name}")
    return Response(status_code=204)


@router.get("/settings", response_class=HTMLResponse)
def settings_page(request: Request) -> HTMLResponse:
    from assay.gather.search.probe import missing_setup
    from assay.gather.search.registry import search_provider_names

    runs = manager(request)
    settings = runs.settings
    keys = KeyStore(settings.home, settings.keys)
    offered = runs.choices
    searches = [
        (name, name in offered.searches, missing_setup(name, settings, keys))
        for name in search_provider_names()
    ]
    home = str(settings.home)
    config = _flat(effective_config(settings))
    shown = [(k, v.replace(home, "$ASSAY_HOME")) for k, v in config if k not in ("keys",)]
    return render(
        request, "settings.html", nav="settings", editable=may_change(request),
        keys=key_states(settings), searches=searches, offered=offered, config=shown,
        allow_hosts=settings.allow_hosts, max_runs=runs.max_runs,
        stored=set(keys.names()),
    )  # fmt: skip


def _flat(value: dict[str, Any], prefix: str = "") -> list[tuple[str, str]]:
    rows: list[tuple[str, str]] = []
    for key, item in value.items():
        name = f"{prefix}{key}"
        if isinstance(item, dict) and item:
            rows += _flat(item, f"{name}.")
        else:
            rows.append((name, setting_text(item)))
    return rows
