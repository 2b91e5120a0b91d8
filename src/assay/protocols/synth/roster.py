"""The panel's roster: a YAML or TOML file, or ``--agent`` flags, read into frozen specs.

A roster file is either a list of agents or a mapping with ``agents`` (and optionally
``chief_author``)::

    chief_author: CC            # optional; defaults to the MANAGER
    agents:
      - {name: CC, role: MANAGER, can_search: false}
      - {name: Codex, role: SEARCHER, can_search: true, search_tool: searxng,
         searxng_url: "http://127.0.0.2:8080", model: "openai:gpt-4.1-mini"}
      - {name: Peer, role: SEARCHER, can_search: true, search_tool: local,
         command: ["my-agent-cli", "--stdin"]}
      - {name: Own, role: SEARCHER, can_search: true, search_tool: searxng,
         command: ["python", "-m", "assay.protocols.synth.example_agent", "--searxng",
                   "http://127.0.0.2:8080"], contract: json}

``role`` is one role or several (``[MANAGER, CHIEF_AUTHOR]`` or ``"MANAGER + CHIEF_AUTHOR"``).
Pydantic checks the file at the boundary; the protocol only sees ``Agent`` and ``Roster``.
"""

from __future__ import annotations

import shlex
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from assay.config import Settings
from assay.controls import has_controls
from assay.errors import BadInputError
from assay.gather.search.probe import configured_providers
from assay.keys import KeyStore
from assay.user_input import CONFIG_FILE_LIMIT, read_user_text

Role = Literal["MANAGER", "SEARCHER", "CHIEF_AUTHOR"]
ROLES: tuple[Role, ...] = ("MANAGER", "SEARCHER", "CHIEF_AUTHOR")


@dataclass(frozen=True)
class Agent:
    """One panel member as declared."""

    name: str
    roles: frozenset[Role]
    can_search: bool = False
    search_tool: str | None = None
    searxng_url: str | None = None
    model: str | None = None
    base_url: str | None = None
    command: tuple[str, ...] = ()
    contract: str | None = None  # "json": the command searches and checks for itself

    @property
    def kind(self) -> str:
        return "command" if self.command else ("model" if self.model else "extractive")

    def declared(self) -> str:
        """What the agent declared, as the MISMATCH report lists it."""
        parts = [
            f"role {'+'.join(r for r in ROLES if r in self.roles)}",
            f"can_search {str(self.can_search).lower()}",
        ]
        if self.search_tool:
            parts.append(f"search_tool {self.search_tool}")
        if self.searxng_url:
            parts.append(f"searxng_url {self.searxng_url}")
        parts.append(f"engine {self.kind}" + (f" {self.model}" if self.model else ""))
        return ", ".join(parts)


@dataclass(frozen=True)
class Roster:
    agents: tuple[Agent, ...]
    chief_author: str | None = None

    def by_name(self, name: str) -> Agent | None:
        return next((a for a in self.agents if a.name == name), None)


class _AgentIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str = Field(min_length=1, max_length=60)
    role: list[Role] = Field(min_length=1)
    can_search: bool = False
    search_tool: str | None = None
    searxng_url: str | None = None
    model: str | None = None
    base_url: str | None = None
    command: list[str] | None = None
    contract: Literal["json"] | None = None

    @field_validator("name")
    @classmethod
    def _name_is_printable(cls, value: str) -> str:
        return _printable_name(value)

    @field_validator("role", mode="before")
    @classmethod
    def _roles(cls, value: Any) -> Any:
        if isinstance(value, str):
            return [p.strip().upper() for p in value.replace(",", "+").split("+") if p.strip()]
        if isinstance(value, list):
            return [str(v).strip().upper() for v in value]
        return value

    @field_validator("command", mode="before")
    @classmethod
    def _command(cls, value: Any) -> Any:
        return shlex.split(value) if isinstance(value, str) else value


class _RosterIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    agents: list[_AgentIn] = Field(min_length=1)
    chief_author: str | None = None

    @field_validator("chief_author")
    @classmethod
    def _chief_is_printable(cls, value: str | None) -> str | None:
        return None if value is None else _printable_name(value)


def _printable_name(value: str) -> str:
    """A name is printed and written in many places: one that is blank or could drive a
    terminal (ESC, BEL, a newline) is refused here rather than cleaned at each of them."""
    if has_controls(value):
        raise ValueError("a name must not contain control characters (ESC, BEL, newline, ...)")
    if not value.strip():
        raise ValueError("a name must not be blank")
    return value


def parse_roster(data: Any) -> Roster:
    """A roster from already-parsed YAML/TOML data; ``BadInputError`` says what is wrong."""
    if isinstance(data, list):
        data = {"agents": data}
    try:
        parsed = _RosterIn.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        raise BadInputError(f"roster: {where}: {first['msg']}") from None
    names = [a.name for a in parsed.agents]
    if len(set(names)) != len(names):
        raise BadInputError("roster: agent names must be unique")
    agents = tuple(
        Agent(
            name=a.name,
            roles=frozenset(a.role),
            can_search=a.can_search,
            search_tool=a.search_tool,
            searxng_url=a.searxng_url,
            model=a.model,
            base_url=a.base_url,
            command=tuple(a.command or ()),
            contract=a.contract,
        )
        for a in parsed.agents
    )
    return Roster(agents, parsed.chief_author)


def load_roster(path: Path) -> Roster:
    """A roster from a ``.yaml``/``.yml`` or ``.toml`` file."""
    text = read_user_text(path, limit=CONFIG_FILE_LIMIT, label=f"roster {path}")
    try:
        data = tomllib.loads(text) if path.suffix.lower() == ".toml" else yaml.safe_load(text)
    except (tomllib.TOMLDecodeError, yaml.YAMLError, RecursionError) as exc:
        raise BadInputError(
            f"roster {path}: not valid {path.suffix or 'YAML'}: {_one_line(exc)}"
        ) from None
    return parse_roster(data)


def _one_line(error: Exception) -> str:
    """A parser's error in one line (YAML's spans several, with a caret drawing)."""
    if isinstance(error, yaml.MarkedYAMLError) and error.problem_mark is not None:
        return f"{error.problem} (line {error.problem_mark.line + 1})"
    return " ".join(str(error).split())


def roster_from_flags(flags: list[str], chief_author: str | None = None) -> Roster:
    """A roster from ``--agent "name=Codex,role=SEARCHER,can_search=true,search_tool=local"``."""
    agents: list[dict[str, Any]] = []
    for flag in flags:
        entry: dict[str, Any] = {}
        for part in flag.split(","):
            key, sep, value = part.partition("=")
            if not sep:
                raise BadInputError(f"--agent {flag!r}: expected key=value pairs")
            key, value = key.strip(), value.strip()
            entry[key] = value.lower() in ("true", "yes", "1") if key == "can_search" else value
        agents.append(entry)
    return parse_roster({"agents": agents, "chief_author": chief_author})


def default_roster(settings: Settings, keys: KeyStore) -> Roster:
    """The roster when none is given, from what is configured: the configured model (or
    the extractive engine) as MANAGER and CHIEF_AUTHOR, and one searcher per configured
    search provider, each writing with the configured model. Pre-flight then decides: one
    provider alone is one searcher, which is a [MISMATCH]."""
    engine = settings.model or "extractive"
    manager = Agent(
        name=f"Manager ({engine})", roles=frozenset({"MANAGER", "CHIEF_AUTHOR"}),
        model=settings.model, base_url=settings.base_url,
    )  # fmt: skip
    searchers = tuple(
        Agent(
            name=f"Searcher-{provider}",
            roles=frozenset({"SEARCHER"}),
            can_search=True,
            search_tool=provider,
            model=settings.model,
            base_url=settings.base_url,
        )
        for provider in configured_providers(settings, keys)
    )
    return Roster((manager, *searchers), manager.name)


def describe_roster(roster: Roster) -> str:
    """The roster as the spec's example lists it, one agent a line."""
    return "\n".join(f"  - {a.name}: {a.declared()}" for a in roster.agents)
