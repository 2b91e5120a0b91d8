"""Effective configuration: defaults < $ASSAY_HOME/config.toml < ASSAY_* variables < flags.

Secrets never live here. The ``[keys]`` table may only *refer* to a secret
(``"$env:NAME"`` or ``"$file:PATH"``); a literal value there is a configuration error.
Nested sections are set from the environment with a double underscore, for example
``ASSAY_FETCH__MIN_DOMAIN_INTERVAL=2``; the common options are flat (``ASSAY_SEARCH``,
``ASSAY_MODEL``, ``ASSAY_ALLOW_HOSTS``...).
"""

from __future__ import annotations

import ipaddress
import re
import tomllib
from contextvars import ContextVar
from datetime import date
from pathlib import Path
from typing import Any, Literal
from urllib.parse import urlsplit

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    field_validator,
    model_validator,
)
from pydantic_settings import (
    BaseSettings,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
)

from assay.errors import ConfigError
from assay.home import config_path as config_path  # re-exported: callers import them here
from assay.home import default_home as default_home
from assay.home import resolve_home
from assay.user_input import CONFIG_FILE_LIMIT, read_user_text

SECRET_REFERENCE_PREFIXES = ("$env:", "$file:")
_config_file: ContextVar[Path | None] = ContextVar("assay_config_file", default=None)


_HOUR = 3600.0
_HOST_LABEL = re.compile(r"(?!-)[a-z0-9_-]{1,63}(?<!-)", re.IGNORECASE)


def _is_host_or_network(entry: str) -> bool:
    """An allow-list entry: an IP or CIDR (IPv6 bracketed or not), or a (wildcard) name."""
    bare = entry.strip()
    if bare.startswith("[") and bare.endswith("]"):
        bare = bare[1:-1]
    try:
        ipaddress.ip_network(bare, strict=False)
    except ValueError:
        pass
    else:
        return True
    name = bare.removeprefix("*.").removeprefix(".").rstrip(".")
    labels = name.split(".")
    if not name or len(name) > 253 or all(label.isdigit() for label in labels):
        return False  # all-numeric yet not an address: a mistyped IP (300.1.1.1)
    return all(_HOST_LABEL.fullmatch(label) for label in labels)


class FetchSettings(BaseModel):
    """The fetcher's policy knobs; the defaults are the spec's rules."""

    model_config = ConfigDict(frozen=True, extra="forbid", allow_inf_nan=False)

    enabled: bool = Field(True, description="false: no web fetching at all (local sources only)")
    min_domain_interval: float = Field(
        1.0, ge=1.0, le=_HOUR, description="seconds between requests to one domain"
    )
    max_concurrency: int = Field(8, ge=1, le=64)
    max_bytes: int = Field(
        1_000_000, ge=1024, le=1_000_000_000, description="cap per source, raw and decoded"
    )
    max_redirects: int = Field(5, ge=0, le=10)
    connect_timeout: float = Field(10.0, gt=0, le=_HOUR)
    read_timeout: float = Field(20.0, gt=0, le=_HOUR)
    total_timeout: float = Field(60.0, gt=0, le=_HOUR)
    retries: int = Field(2, ge=0, le=5)
    max_retry_after: float = Field(30.0, ge=0, le=_HOUR)
    accept_pdf: bool = True
    source_token_cap: int = Field(15_000, ge=100, le=10_000_000)
    run_token_cap: int = Field(50_000, ge=100, le=100_000_000)
    cache_ttl: float = Field(
        86_400.0, ge=0, le=365 * 86_400, description="seconds a cached page is fresh"
    )


class ScholarlySettings(BaseModel):
    """Where the scholarly search providers send their queries (``gather/search``): each
    API's documented endpoint unless the configuration names another (a mirror, the lab's
    imitation). A server's requests cannot choose these, so the keys below travel only to
    endpoints its operator configured."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    arxiv_url: str = "https://export.arxiv.org/api/query"
    openalex_url: str = "https://api.openalex.org"
    semantic_scholar_url: str = "https://api.semanticscholar.org/graph/v1"
    pubmed_url: str = "https://eutils.ncbi.nlm.nih.gov/entrez/eutils"
    pubmed_pages: str = Field(
        "https://pubmed.ncbi.nlm.nih.gov", description="where a PubMed record's page is"
    )
    contact_email: str | None = Field(
        None,
        max_length=254,
        description="sent to OpenAlex (mailto) and NCBI (email), as their polite use asks",
    )

    @field_validator("arxiv_url", "openalex_url", "semantic_scholar_url", "pubmed_url",
                     "pubmed_pages")  # fmt: skip
    @classmethod
    def _http_url(cls, value: str) -> str:
        parts = urlsplit(value.strip())
        if parts.scheme.lower() not in ("http", "https") or not parts.hostname:
            raise ValueError(f"must be an http(s) URL, got {value!r}")
        return value.strip().rstrip("/")


class Settings(BaseSettings):
    """Everything a run can be configured with. Secrets are referenced, never held."""

    model_config = SettingsConfigDict(
        env_prefix="ASSAY_",
        env_nested_delimiter="__",
        extra="forbid",
        frozen=True,
        allow_inf_nan=False,
    )

    home: Path = Field(default_factory=default_home)
    search: str = "local"
    searxng_url: str | None = None
    max_results: int = Field(8, ge=1, le=50)
    mcp_command: str | list[str] | None = Field(
        None, description="a stdio MCP server whose search tool the mcp provider uses"
    )
    mcp_url: str | None = Field(None, description="a streamable-HTTP MCP server")
    mcp_tool: str | None = Field(
        None, description="the tool to call (default: the first search tool)"
    )
    mcp_env: list[str] = Field(
        default_factory=list, description="names of keys passed to a stdio MCP server"
    )
    model: str | None = Field(None, description="provider:model; none → the extractive engine")
    base_url: str | None = None
    model_output_mode: Literal["json_schema", "prompted_json", "tool"] | None = Field(
        None, description="override the model profile's structured-output mode"
    )
    context_tokens: int | None = Field(
        None,
        ge=512,
        le=10_000_000,
        description="the model's context window in tokens, prompt and reply together; "
        "default: the server's own (llama.cpp) or the provider's",
    )
    model_max_tokens: int | None = Field(None, ge=16)
    model_price_input: float | None = Field(None, ge=0, description="USD per 1M input tokens")
    model_price_output: float | None = Field(None, ge=0, description="USD per 1M output tokens")
    allow_hosts: list[str] = Field(default_factory=list)
    include_domains: list[str] = Field(
        default_factory=list,
        description="use only sources under these domains (and their subdomains)",
    )
    exclude_domains: list[str] = Field(
        default_factory=list,
        description="never search results from, nor fetch, these domains (and subdomains)",
    )
    language: str | None = Field(
        None, description="search and write in this language (default: the question's)"
    )
    since: date | None = Field(None, description="drop results published before this date")
    until: date | None = Field(None, description="drop results published after this date")
    budget_tokens: int | None = Field(None, ge=1)
    budget_time: float | None = Field(
        None, gt=0, le=30 * 86_400, description="seconds of wall time"
    )
    budget_model_calls: int | None = Field(None, ge=1)
    budget_fetches: int | None = Field(None, ge=1)
    hop_pages: int = Field(
        6, ge=1, le=100, description="with a model: pages a research run's hop loop reads at most"
    )
    hop_tokens: int = Field(
        8_000, ge=100, description="with a model: model tokens the hop loop spends at most"
    )
    hop_seconds: float = Field(
        300.0, gt=0, le=86_400, description="with a model: seconds the hop loop runs at most"
    )
    fsync: Literal["always", "never"] = "always"
    queue_models: list[str] = Field(
        default_factory=list,
        description="models a queued batch may ask an `assay worker` for, besides `model`",
    )
    fetch: FetchSettings = Field(default_factory=FetchSettings)  # type: ignore[arg-type]
    scholarly: ScholarlySettings = Field(default_factory=ScholarlySettings)  # type: ignore[arg-type]
    keys: dict[str, str] = Field(default_factory=dict)

    @field_validator("keys")
    @classmethod
    def _keys_are_references(cls, value: dict[str, str]) -> dict[str, str]:
        for name, ref in value.items():
            if not ref.startswith(SECRET_REFERENCE_PREFIXES):
                raise ValueError(
                    f"keys.{name} holds a literal value; secrets are never stored in config: "
                    f'write "$env:NAME" or "$file:PATH", or run `assay keys set {name}`'
                )
        return value

    @field_validator("allow_hosts", "queue_models", "include_domains", "exclude_domains",
                     mode="before")  # fmt: skip
    @classmethod
    def _split_commas(cls, value: Any) -> Any:
        if isinstance(value, str):
            return [h.strip() for h in value.split(",") if h.strip()]
        return value

    @field_validator("allow_hosts")
    @classmethod
    def _hosts_parse(cls, value: list[str]) -> list[str]:
        for entry in value:
            if not _is_host_or_network(entry):
                raise ValueError(
                    f"{entry!r} is not a host name, an IP address or a CIDR network "
                    "(e.g. 127.0.0.1, 10.0.0.0/8, ::1, lab.test, *.lab.test)"
                )
        return value

    @field_validator("include_domains", "exclude_domains")
    @classmethod
    def _domains_parse(cls, value: list[str]) -> list[str]:
        from assay.domains import parse_domain  # the Public Suffix List: when used

        return list(dict.fromkeys(parse_domain(entry) for entry in value))

    @field_validator("language")
    @classmethod
    def _language_known(cls, value: str | None) -> str | None:
        from assay.language import parse_language

        return parse_language(value) if value else None

    @model_validator(mode="after")
    def _window_is_a_window(self) -> Settings:
        if self.since is not None and self.until is not None and self.since > self.until:
            raise ValueError(f"since ({self.since}) is after until ({self.until})")
        return self

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        return (init_settings, env_settings, _TomlFileSource(settings_cls))

    def snapshot(self) -> dict[str, Any]:
        """A JSON-ready copy for run.json: references only, never a secret value."""
        return self.model_dump(mode="json")


class _TomlFileSource(PydanticBaseSettingsSource):
    """Reads ``$ASSAY_HOME/config.toml``; a file that does not parse is a ConfigError."""

    def get_field_value(self, field: Any, field_name: str) -> tuple[Any, str, bool]:
        return None, field_name, False

    def __call__(self) -> dict[str, Any]:
        path = _config_file.get() or config_path()
        if not path.exists():  # a device or FIFO in its place is an error, not "no config"
            return {}
        text = read_user_text(path, limit=CONFIG_FILE_LIMIT, label=str(path), error=ConfigError)
        try:
            return tomllib.loads(text)
        except tomllib.TOMLDecodeError as exc:
            raise ConfigError(f"{path}: not valid TOML: {exc}") from None


def load_settings(**overrides: Any) -> Settings:
    """Build the effective settings; flags come in as ``overrides`` (None means not given).

    The config file is read from the home the flags or the environment chose.
    """
    given = {k: v for k, v in overrides.items() if v is not None and v != []}
    home = resolve_home(given.get("home"))
    given["home"] = home
    token = _config_file.set(config_path(home))
    try:
        return Settings(**given)
    except ValidationError as exc:
        raise ConfigError(_one_line(exc)) from None
    finally:
        _config_file.reset(token)


def _one_line(exc: ValidationError) -> str:
    first = exc.errors()[0]
    where = ".".join(str(p) for p in first["loc"]) or "configuration"
    more = f" (and {exc.error_count() - 1} more)" if exc.error_count() > 1 else ""
    return f"invalid setting {where}: {first['msg']}{more}"
