"""A run any interface can ask for: the protocol, the question and the common options.

The web API (``web.runs``) and the MCP server (``assay.mcp``) both start runs through
``call_protocol``: one mapping from a request to the library's ``*_async`` calls. What a
request may choose on a server, and with whose key, is ``protocols.served``.
"""

from __future__ import annotations

import secrets
from datetime import UTC, date, datetime
from typing import TYPE_CHECKING, Literal

from pydantic import BaseModel, ConfigDict, Field, SecretStr, field_validator, model_validator

from assay.config import Settings
from assay.protocols.deep.plan import MAX_DIRECTIONS
from assay.store.eventlog import Listener

if TYPE_CHECKING:
    from assay.models.base import Model

Protocol = Literal["research", "ask", "web-research", "deep", "synth"]
PROTOCOLS: tuple[Protocol, ...] = ("research", "ask", "web-research", "deep", "synth")
RESUMABLE = ("research", "ask", "deep")
# What a resumed run keeps from its own settings (as `assay resume` does).
RESUMED_SETTINGS = ("search", "searxng_url", "max_results", "allow_hosts", "model", "base_url",
                    "mcp_command", "mcp_url", "mcp_tool", "mcp_env", "fetch",
                    "include_domains", "exclude_domains", "since", "until",
                    "language")  # fmt: skip


class StartRun(BaseModel):
    """A run to start: the protocol, the question and the common options."""

    model_config = ConfigDict(extra="forbid")

    protocol: Protocol = "research"
    topic: str = Field(min_length=1, max_length=2000, description="The question or topic.")
    search: str | None = Field(default=None, max_length=64, description="Search provider.")
    searxng_url: str | None = Field(default=None, max_length=2000)
    model: str | None = Field(default=None, max_length=200, description="PROVIDER:MODEL.")
    base_url: str | None = Field(default=None, max_length=2000)
    api_key: SecretStr | None = Field(
        default=None,
        min_length=1,
        max_length=500,
        description="Your own key for `model` at `base_url` (never stored); without it a "
        "request may only use the models and endpoints the server offers.",
    )
    include_domains: list[str] = Field(
        default_factory=list,
        max_length=50,
        description="Use only sources under these domains (and their subdomains).",
    )
    exclude_domains: list[str] = Field(
        default_factory=list,
        max_length=50,
        description="Never offer results from, nor fetch, these domains (and subdomains).",
    )
    language: str | None = Field(
        default=None,
        max_length=40,
        description="Search and write in this language (en, de, fr, es, zh, ja); default: "
        "the topic's.",
    )
    since: date | None = Field(default=None, description="Drop results published before.")
    until: date | None = Field(default=None, description="Drop results published after.")
    budget_tokens: int | None = Field(default=None, ge=1, le=10_000_000)
    budget_time: float | None = Field(default=None, gt=0, le=86_400)
    sources: int = Field(default=5, ge=1, le=20, description="research: sources to read.")
    urls: list[str] = Field(default_factory=list, max_length=20, description="web-research")
    keywords: list[str] = Field(default_factory=list, max_length=20, description="web-research")
    depth: Literal["shallow", "medium", "deep"] = "medium"
    max_directions: int = Field(default=MAX_DIRECTIONS, ge=1, le=MAX_DIRECTIONS, description="deep")

    @field_validator("include_domains", "exclude_domains")
    @classmethod
    def _domains(cls, value: list[str]) -> list[str]:
        from assay.domains import parse_domain

        return list(dict.fromkeys(parse_domain(entry) for entry in value))

    @field_validator("language")
    @classmethod
    def _language(cls, value: str | None) -> str | None:
        from assay.language import parse_language

        return parse_language(value) if value else None

    @model_validator(mode="after")
    def _window(self) -> StartRun:
        if self.since is not None and self.until is not None and self.since > self.until:
            raise ValueError(f"since ({self.since}) is after until ({self.until})")
        return self


async def call_protocol(
    request: StartRun,
    settings: Settings,
    listener: Listener | None = None,
    *,
    model: Model | None = None,
) -> object:
    """Run ``request`` to its end (the protocol's own result object); ``model`` instead of
    the one the settings name (synth builds its agents' models itself, so takes none)."""
    topic = request.topic
    if request.protocol == "research":
        from assay.protocols.research import research_async

        return await research_async(
            topic, settings=settings, sources=request.sources, listener=listener, model=model
        )
    if request.protocol == "ask":
        from assay.protocols.research import ask_async

        return await ask_async(topic, settings=settings, listener=listener, model=model)
    if request.protocol == "web-research":
        from assay.protocols.web_research.results import WebResearchRequest
        from assay.protocols.web_research.skill import run_web_research

        checked = WebResearchRequest.build(
            topic, request.urls, request.keywords, request.depth, "summary"
        )
        return await run_web_research(checked, settings, listener=listener, model=model)
    if request.protocol == "deep":
        from assay.protocols.deep import deep_research_async

        output = settings.home / "deep-reports"
        output.mkdir(parents=True, exist_ok=True)
        return await deep_research_async(
            topic, settings=settings, max_directions=request.max_directions, output=output,
            listener=listener, model=model,
        )  # fmt: skip
    if model is not None:
        raise ValueError("synth builds its agents' models itself")
    from assay.protocols.synth import synth_async

    folder = settings.home / "synth-output"
    folder.mkdir(parents=True, exist_ok=True)
    # synth writes its output to a file (a folder there halts the panel): one per run
    stamp = datetime.now(UTC).strftime("%Y%m%d-%H%M%S")
    output = folder / f"synth-{stamp}-{secrets.token_hex(3)}.md"
    return await synth_async(topic, settings=settings, output=output, listener=listener)


async def resume_protocol(protocol: str, run_id: str, settings: Settings) -> object:
    """Continue an interrupted research, ask or deep run."""
    if protocol == "deep":
        from assay.protocols.deep import deep_resume_async

        return await deep_resume_async(run_id, settings=settings)
    from assay.protocols.research import resume_async

    return await resume_async(run_id, settings=settings)
