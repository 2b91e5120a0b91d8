"""Protocols by name: the ``assay.protocols`` entry-point group, and the one way to run one.

Every interface (the CLI, the web API, the MCP server, batch, the TUI) starts a run with
``run_protocol`` and continues one with ``resume_protocol``; neither knows any protocol by
name. The built-ins register through pyproject.toml like a third-party package would;
``BUILT_INS`` repeats their entry points so that an install whose metadata predates the
group (an editable install not reinstalled since) still has them — a test checks the two
agree.
"""

from __future__ import annotations

from importlib.metadata import EntryPoint
from typing import Any

from pydantic import ValidationError

from assay.errors import BadInputError, ConfigError
from assay.plugins import PROTOCOLS_GROUP, plugin_entry_points, unknown_name
from assay.protocols.contract import ProtocolResult, ProtocolSpec, RunEnv

BUILT_INS = {
    "research": "assay.protocols.builtin:RESEARCH",
    "ask": "assay.protocols.builtin:ASK",
    "web-research": "assay.protocols.builtin:WEB_RESEARCH",
    "deep": "assay.protocols.builtin:DEEP",
    "synth": "assay.protocols.builtin:SYNTH",
}


def _registered() -> dict[str, EntryPoint]:
    found = {n: EntryPoint(name=n, value=v, group=PROTOCOLS_GROUP) for n, v in BUILT_INS.items()}
    for name, point in plugin_entry_points(PROTOCOLS_GROUP).items():
        found.setdefault(name, point)  # a plugin cannot take a built-in's name
    return found


def protocol_names() -> list[str]:
    """Every registered protocol, built-ins first (in their order), then plugins sorted."""
    names = _registered()
    return [*BUILT_INS, *sorted(n for n in names if n not in BUILT_INS)]


def is_protocol(name: str) -> bool:
    return name in _registered()


def protocol_spec(name: str) -> ProtocolSpec[Any]:
    """The spec registered as ``name``; an unknown name is the one-line ConfigError naming
    the registered ones."""
    found = _registered()
    if name not in found:
        raise unknown_name("protocol", name, found)
    spec = found[name].load()
    if not isinstance(spec, ProtocolSpec) or spec.name != name:
        raise ConfigError(f"protocol plugin {name!r} does not load a ProtocolSpec named {name!r}")
    return spec


def resumable(name: str) -> bool:
    """Whether runs of ``name`` can be continued from their files."""
    return is_protocol(name) and protocol_spec(name).resume is not None


async def run_protocol(name: str, fields: dict[str, Any], env: RunEnv) -> ProtocolResult:
    """Run protocol ``name`` on the request ``fields`` (those its request model declares;
    the others are ignored) to its end."""
    spec = protocol_spec(name)
    try:
        request = spec.parse(fields)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "request"
        raise BadInputError(f"{name}: {where}: {first['msg']}") from None
    return await spec.run(request, env)


async def resume_protocol(name: str, run_id: str, env: RunEnv) -> ProtocolResult:
    """Continue the interrupted run ``run_id`` of protocol ``name``."""
    spec = protocol_spec(name)
    if spec.resume is None:
        raise BadInputError(f"a {name} run cannot be resumed")
    return await spec.resume(run_id, env)
