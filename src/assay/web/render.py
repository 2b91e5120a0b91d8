"""How the UI's pages are made: Jinja templates (autoescaped), a fresh script nonce per
response and the Content-Security-Policy that runs only the page's own scripts, and the
UI's static assets (``static/``: CSS and plain JS, package data; nothing from a CDN)."""

from __future__ import annotations

import secrets
from pathlib import Path
from typing import Any

from fastapi import Request
from fastapi.responses import HTMLResponse
from fastapi.staticfiles import StaticFiles
from fastapi.templating import Jinja2Templates

from assay.__about__ import __version__

_HERE = Path(__file__).parent
templates = Jinja2Templates(directory=str(_HERE / "templates"))
STATIC_PATH = "/static"


def static_files() -> StaticFiles:
    return StaticFiles(directory=_HERE / "static")


def csp(nonce: str) -> str:
    return (
        f"default-src 'none'; script-src 'nonce-{nonce}'; style-src 'self'; "
        "connect-src 'self'; img-src 'self' data:; form-action 'self'; base-uri 'none'; "
        "frame-ancestors 'none'"
    )


def setting_text(value: object) -> str:
    """A setting's value as a person reads it, on every page that shows one: "yes"/"no",
    "—" for none, a list joined by commas (never Python's ``True``/``None``/``[...]``)."""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, list):
        return ", ".join(setting_text(v) for v in value) or "—"
    return "—" if value is None or value == "" or value == {} else str(value)


def render(request: Request, name: str, nonce: str | None = None, **context: Any) -> HTMLResponse:
    """A template with a fresh script nonce (or ``nonce``) and the CSP that allows it."""
    nonce = nonce or secrets.token_urlsafe(16)
    response = templates.TemplateResponse(
        request, name, {"nonce": nonce, "version": __version__, **context}
    )
    response.headers["content-security-policy"] = csp(nonce)
    return response
