"""``assay run PROTOCOL TOPIC``: any registered protocol, a plugin's as well as a built-in's.

The built-ins have commands of their own with their own flags and output; this one takes
what every protocol's request model takes — the topic, and ``--set FIELD=VALUE`` for the
fields the protocol's request model declares (it checks them) — and prints what every
``ProtocolResult`` says.
"""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from typing import TYPE_CHECKING, Annotated, Any

import typer

from assay.cli.options import CommonOptions, with_common_options
from assay.cli.output import console, print_json, shown
from assay.errors import BadInputError

if TYPE_CHECKING:
    from assay.config import Settings
    from assay.protocols.contract import ProtocolResult, RunEnv

Start = Callable[["RunEnv"], Coroutine[Any, Any, "ProtocolResult"]]


def _fields(pairs: list[str]) -> dict[str, str]:
    fields: dict[str, str] = {}
    for pair in pairs:
        name, equals, value = pair.partition("=")
        if not equals or not name.strip():
            raise BadInputError(f"--set takes FIELD=VALUE, not {pair!r}")
        fields[name.strip()] = value
    return fields


def drive_any(options: CommonOptions, start: Start, settings: Settings | None = None) -> None:
    """Run ``start`` with the progress display and print its result."""
    import asyncio

    from assay.cli.progress import progress
    from assay.protocols.contract import RunEnv

    settings = settings or options.settings()
    with progress(not (options.quiet or options.json)) as listener:
        result = asyncio.run(start(RunEnv(settings, listener)))
    if options.json:
        print_json(result.to_json())
        return
    answer = result.answer or result.summary
    console.print(f"[bold]Answer:[/] {shown(answer or '(none found)')}", highlight=False)
    console.print(f"run: {result.run_id} ({result.protocol}, {result.status})", markup=False)
    if result.reason:
        console.print(f"reason: {shown(result.reason)}", markup=False)
    if result.report is not None:
        console.print(f"report: {result.report}", markup=False, highlight=False, soft_wrap=True)


@with_common_options
def run(
    protocol: Annotated[str, typer.Argument(help="A registered protocol (a plugin's, too).")],
    topic: Annotated[str, typer.Argument(help="The question or topic.")],
    field: Annotated[
        list[str] | None,
        typer.Option(
            "--set", metavar="FIELD=VALUE", help="A field of the protocol's request (repeatable)."
        ),
    ] = None,
    *,
    options: CommonOptions,
) -> None:
    """Run any registered protocol on TOPIC (``assay config show`` lists them)."""
    from assay.protocols.registry import protocol_spec, run_protocol

    protocol_spec(protocol)  # an unknown name: one line naming the registered ones
    fields: dict[str, Any] = {**_fields(field or []), "topic": topic}
    drive_any(options, lambda env: run_protocol(protocol, fields, env))
