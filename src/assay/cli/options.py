"""Options shared by commands, declared once.

Every research command (research, ask, web-research, deep, synth) takes the same
``CommonOptions``; each option can also be set in config.toml or as an ``ASSAY_*``
variable, and a flag wins over both.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, TypeVar, cast

import typer

if TYPE_CHECKING:
    from assay.config import Settings
    from assay.protocols.served import ServedChoices

HomeOpt = Annotated[
    Path | None,
    typer.Option(
        "--home",
        metavar="PATH",
        help="ASSAY_HOME: where runs, keys and the index live.",
        show_default=False,
    ),
]
JsonOpt = Annotated[
    bool, typer.Option("--json", help="Print one JSON object on stdout, nothing else.")
]
QuietOpt = Annotated[bool, typer.Option("--quiet", "-q", help="No progress display.")]
SearchOpt = Annotated[
    str | None,
    typer.Option("--search", metavar="NAME", help="Search provider (local, searxng, brave, ...)."),
]
SearxngUrlOpt = Annotated[
    str | None, typer.Option("--searxng-url", metavar="URL", help="SearxNG base URL.")
]
ModelOpt = Annotated[
    str | None,
    typer.Option(
        "--model",
        metavar="PROVIDER:MODEL",
        help="e.g. openai:gpt-4o-mini; without it the extractive engine is used.",
    ),
]
BaseUrlOpt = Annotated[
    str | None,
    typer.Option("--base-url", metavar="URL", help="Base URL of an OpenAI-compatible endpoint."),
]
AllowHostOpt = Annotated[
    list[str] | None,
    typer.Option(
        "--allow-host",
        metavar="HOST",
        help="Allow fetching this private/loopback host or CIDR (repeatable).",
        show_default=False,
    ),
]


def _offer(flag: str, metavar: str, what: str) -> Any:
    return Annotated[
        list[str] | None,
        typer.Option(flag, metavar=metavar, help=f"{what} (repeatable).", show_default=False),
    ]


# A server's requests may pick only what it was started with and what these offer besides.
AllowModelOpt = _offer("--allow-model", "PROVIDER:MODEL", "Another model requests may pick")
AllowSearchOpt = _offer("--allow-search", "NAME", "Another search provider requests may pick")
AllowBaseUrlOpt = _offer(
    "--allow-base-url", "URL", "Another model endpoint requests may send the server's keys to"
)
AllowSearxngUrlOpt = _offer(
    "--allow-searxng-url", "URL", "Another SearXNG instance requests may pick"
)
ContextTokensOpt = Annotated[
    int | None,
    typer.Option(
        "--context-tokens",
        min=512,
        metavar="N",
        help="The model's context window (prompt + reply); default: the server's or the "
        "provider's.",
        show_default=False,
    ),
]
IncludeDomainOpt = _offer(
    "--include-domain", "DOMAIN", "Use only sources under this domain and its subdomains"
)
ExcludeDomainOpt = _offer(
    "--exclude-domain", "DOMAIN", "Never search results from, nor fetch, this domain"
)
SinceOpt = Annotated[
    str | None,
    typer.Option(
        "--since", metavar="YYYY-MM-DD", help="Drop results published before this date.",
        show_default=False,
    ),
]  # fmt: skip
UntilOpt = Annotated[
    str | None,
    typer.Option(
        "--until", metavar="YYYY-MM-DD", help="Drop results published after this date.",
        show_default=False,
    ),
]  # fmt: skip
LanguageOpt = Annotated[
    str | None,
    typer.Option(
        "--language", metavar="LANG",
        help="Search and write in this language (en, de, fr, es, zh, ja); default: the "
        "question's.", show_default=False,
    ),
]  # fmt: skip
BudgetTokensOpt = Annotated[
    int | None, typer.Option("--budget-tokens", min=1, help="Stop after this many model tokens.")
]
BudgetTimeOpt = Annotated[
    float | None, typer.Option("--budget-time", min=0.001, help="Stop after this many seconds.")
]


@dataclass(frozen=True)
class CommonOptions:
    """The flags every research command shares, as given (None = not given)."""

    home: Path | None = None
    search: str | None = None
    searxng_url: str | None = None
    model: str | None = None
    base_url: str | None = None
    context_tokens: int | None = None
    allow_hosts: list[str] = field(default_factory=list)
    include_domains: list[str] = field(default_factory=list)
    exclude_domains: list[str] = field(default_factory=list)
    since: str | None = None
    until: str | None = None
    language: str | None = None
    budget_tokens: int | None = None
    budget_time: float | None = None
    json: bool = False
    quiet: bool = False
    allow_models: list[str] = field(default_factory=list)
    allow_searches: list[str] = field(default_factory=list)
    allow_base_urls: list[str] = field(default_factory=list)
    allow_searxng_urls: list[str] = field(default_factory=list)
    starts_runs: bool = False
    """A command that starts runs (every one with these options): its settings' search
    provider must be a registered one, refused before any run exists."""

    def settings(self, recorded: Mapping[str, Any] | None = None) -> Settings:
        """The effective settings; ``recorded`` (a resumed run's) wins over all but flags."""
        from assay.config import load_settings  # pydantic-settings: only for commands that run

        flags = {
            "home": self.home,
            "search": self.search,
            "searxng_url": self.searxng_url,
            "model": self.model,
            "base_url": self.base_url,
            "context_tokens": self.context_tokens,
            "allow_hosts": self.allow_hosts or None,
            "include_domains": self.include_domains or None,
            "exclude_domains": self.exclude_domains or None,
            "since": self.since,
            "until": self.until,
            "language": self.language,
            "budget_tokens": self.budget_tokens,
            "budget_time": self.budget_time,
        }
        given = {name: value for name, value in flags.items() if value is not None}
        settings = load_settings(**{**(recorded or {}), **given})
        if self.starts_runs:
            from assay.gather.search.registry import known_search_provider

            known_search_provider(settings.search)
        return settings

    def served_choices(self, settings: Settings) -> ServedChoices:
        """What a server's requests may pick: ``settings`` plus the ``--allow-*`` offers."""
        from assay.protocols.served import ServedChoices

        return ServedChoices.offered(
            settings, models=self.allow_models, searches=self.allow_searches,
            base_urls=self.allow_base_urls, searxng_urls=self.allow_searxng_urls,
        )  # fmt: skip


_COMMON: tuple[tuple[str, Any, object], ...] = (
    ("home", HomeOpt, None),
    ("search", SearchOpt, None),
    ("searxng_url", SearxngUrlOpt, None),
    ("model", ModelOpt, None),
    ("base_url", BaseUrlOpt, None),
    ("context_tokens", ContextTokensOpt, None),
    ("allow_host", AllowHostOpt, None),
    ("include_domain", IncludeDomainOpt, None),
    ("exclude_domain", ExcludeDomainOpt, None),
    ("since", SinceOpt, None),
    ("until", UntilOpt, None),
    ("language", LanguageOpt, None),
    ("budget_tokens", BudgetTokensOpt, None),
    ("budget_time", BudgetTimeOpt, None),
    ("as_json", JsonOpt, False),
    ("quiet", QuietOpt, False),
)

F = TypeVar("F", bound=Callable[..., Any])


_SERVED: tuple[tuple[str, Any, object], ...] = (
    ("allow_model", AllowModelOpt, None),
    ("allow_search", AllowSearchOpt, None),
    ("allow_base_url", AllowBaseUrlOpt, None),
    ("allow_searxng_url", AllowSearxngUrlOpt, None),
)

# Option name -> CommonOptions field, where they differ.
_FIELDS = {"allow_host": "allow_hosts", "as_json": "json", "allow_model": "allow_models",
           "include_domain": "include_domains", "exclude_domain": "exclude_domains",
           "allow_search": "allow_searches", "allow_base_url": "allow_base_urls",
           "allow_searxng_url": "allow_searxng_urls"}  # fmt: skip
_SERVER = ("home", "search", "searxng_url", "model", "base_url", "allow_host")


def with_common_options(command: F) -> F:
    """Give a command the shared research options, declared once here.

    The command takes an ``options: CommonOptions`` parameter instead of the ten flags;
    the wrapper shows Typer the command's own parameters followed by the shared ones.
    """
    return _with_options(command, _COMMON)


def with_server_options(command: F) -> F:
    """The shared options a server command (``serve``, ``mcp``) takes: where runs live and
    how the runs started in it search and answer."""
    return _with_options(command, (*(o for o in _COMMON if o[0] in _SERVER), *_SERVED))


def _with_options(command: F, declared: tuple[tuple[str, Any, object], ...]) -> F:
    own = inspect.signature(command, eval_str=True)
    parameters = [p for p in own.parameters.values() if p.name != "options"]
    parameters += [
        inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=default, annotation=kind)
        for name, kind, default in declared
    ]

    @functools.wraps(command)
    def with_options(*args: Any, **kwargs: Any) -> Any:
        given = {_FIELDS.get(name, name): kwargs.pop(name) for name, _, _ in declared}
        for listed in ("allow_hosts", "include_domains", "exclude_domains",
                       *(_FIELDS[name] for name, _, _ in _SERVED)):  # fmt: skip
            given[listed] = given.get(listed) or []  # Typer gives None for a list not given
        options = CommonOptions(**given, starts_runs=True)
        return command(*args, options=options, **kwargs)

    with_options.__signature__ = own.replace(parameters=parameters)  # type: ignore[attr-defined]
    return cast(F, with_options)


def home_dir(home: Path | None) -> Path:
    """The home a command works in, without loading the settings machinery."""
    from assay.home import resolve_home

    return resolve_home(home)
