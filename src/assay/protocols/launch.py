"""A run any interface can ask for: the protocol, the question and the common options.

The web API (``web.runs``) and the MCP server (``assay.mcp``) both start runs through
``call_protocol``: ``StartRun`` is the wire format (every protocol's options in one flat
request, as the API has always taken them), and ``protocols.registry`` runs the protocol it
names. What a request may choose on a server, and with whose key, is ``protocols.served``.
"""

from __future__ import annotations

from datetime import date
from typing import TYPE_CHECKING, Literal

from pydantic import BaseModel, ConfigDict, Field, SecretStr, field_validator, model_validator

from assay.config import Settings
from assay.protocols.contract import ProtocolResult, RunEnv
from assay.protocols.deep.plan import MAX_DIRECTIONS
from assay.protocols.registry import is_protocol, protocol_names, protocol_spec, run_protocol
from assay.store.eventlog import Listener

if TYPE_CHECKING:
    from assay.models.base import Model

PROTOCOLS: tuple[str, ...] = ("research", "ask", "web-research", "deep", "synth")
"""The built-in protocols (the web form's choices)."""
# What a resumed run keeps from its own settings (as `assay resume` does).
RESUMED_SETTINGS = ("search", "searxng_url", "max_results", "allow_hosts", "model", "base_url",
                    "mcp_command", "mcp_url", "mcp_tool", "mcp_env", "fetch",
                    "include_domains", "exclude_domains", "since", "until",
                    "language")  # fmt: skip


class StartRun(BaseModel):
    """A run to start: the protocol, the question and the common options."""

    model_config = ConfigDict(extra="forbid")

    protocol: str = Field(
        default="research",
        max_length=64,
        description="A registered protocol: research, ask, web-research, deep, synth, or "
        "a plugin's.",
    )
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

    @field_validator("protocol")
    @classmethod
    def _protocol(cls, value: str) -> str:
        if not is_protocol(value):
            raise ValueError(f"unknown protocol {value!r} (known: {', '.join(protocol_names())})")
        return value

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
) -> ProtocolResult:
    """Run ``request`` to its end; ``model`` instead of the one the settings name (synth
    builds its agents' models itself, so takes none)."""
    spec = protocol_spec(request.protocol)
    fields = request.model_dump(exclude={"protocol", "api_key"})
    env = RunEnv(settings, listener=listener, model=model)
    return await run_protocol(request.protocol, spec.unattended_fields(settings, fields), env)
