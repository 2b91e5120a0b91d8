"""The app factory: the API and UI routers, the security middleware, error mapping, and
the run manager, whose runs are cancelled (left resumable) when the server stops."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse

from assay.__about__ import __version__
from assay.config import Settings
from assay.errors import (
    AmbiguousRunError,
    AssayError,
    IntegrityError,
    RunNotFoundError,
    UnsafePathError,
    UserError,
)
from assay.protocols.served import ServedChoices
from assay.web import api, history, pages
from assay.web import settings as settings_page
from assay.web.render import STATIC_PATH, static_files
from assay.web.runs import RunManager, RunNotActive, TooManyRuns
from assay.web.security import MAX_BODY_BYTES, Guard, SecurityMiddleware

# The most specific class first: the first match decides the status.
_STATUS: tuple[tuple[type[AssayError], int], ...] = (
    (RunNotFoundError, 404),
    (UnsafePathError, 404),  # a path that would leave the store names no run
    (AmbiguousRunError, 404),
    (settings_page.NotAllowed, 403),
    (RunNotActive, 409),
    (TooManyRuns, 429),
    (IntegrityError, 409),
    (UserError, 400),
)


@dataclass(frozen=True)
class ServerConfig:
    """What ``assay serve`` was started with."""

    settings: Settings
    token: str | None = None
    max_runs: int = 4
    choices: ServedChoices | None = None
    """What requests may pick besides what ``settings`` configure (``protocols.served``)."""
    public_names: frozenset[str] = field(default_factory=frozenset)
    """Host names (besides loopback) the server answers under, e.g. behind a proxy."""
    max_body: int = MAX_BODY_BYTES


def create_app(config: ServerConfig) -> FastAPI:
    runs = RunManager(config.settings, max_runs=config.max_runs, offered=config.choices)

    @asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        yield
        await runs.close()

    app = FastAPI(
        title="assay",
        version=__version__,
        description="Research runs whose every 'verified' can be re-checked by code.",
        lifespan=lifespan,
    )
    app.state.runs = runs
    app.include_router(api.router)
    app.include_router(settings_page.api)
    app.include_router(pages.router)
    app.include_router(history.router)
    app.include_router(settings_page.router)
    app.mount(STATIC_PATH, static_files(), name="static")
    app.add_exception_handler(AssayError, _assay_error)  # type: ignore[arg-type]
    names = frozenset(n.strip().lower() for n in config.public_names if n.strip())
    guard = Guard(config.token, public_names=names, max_body=config.max_body)
    app.state.guard = guard
    app.add_middleware(SecurityMiddleware, guard=guard)
    return app


async def _assay_error(request: Request, exc: AssayError) -> JSONResponse:
    status = next((code for kind, code in _STATUS if isinstance(exc, kind)), 500)
    detail = _without_home(str(exc), request.app.state.runs.settings.home)
    return JSONResponse({"detail": detail, "kind": type(exc).__name__}, status_code=status)


def _without_home(text: str, home: Path) -> str:
    """An error as a client sees it: the server's filesystem layout is not its business."""
    for spelling in sorted({str(home.resolve()), str(home)}, key=len, reverse=True):
        text = text.replace(spelling, "$ASSAY_HOME")
    return text
