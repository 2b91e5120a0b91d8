"""Help that reads well in an 80-column terminal.

Typer labels every parameter with its Python type (``<bool>``, ``<list[str]>``) and keeps
a docstring's line breaks (cutting lines short at 80 columns); it has no setting for
either. ``AssayGroup`` — the class of the root app and of every command group — fixes
both on each command it hands out: a flag shows no type, an option its declared
``metavar`` or a plain word for its type (N, SECONDS, PATH, TEXT), an argument nothing
beside its name; each paragraph of a command's help is reflowed to the terminal.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from pathlib import Path
from typing import Any, get_args, get_origin

from typer.core import TyperArgument, TyperGroup, TyperOption

_WORDS = {bool: "", int: "N", float: "SECONDS", Path: "PATH", str: "TEXT"}


def _word_for(annotation: Any) -> str:
    if get_origin(annotation) is list:
        (annotation,) = get_args(annotation)
    return _WORDS.get(annotation, "VALUE")


def _type_label(param: TyperOption | TyperArgument) -> str | None:
    if isinstance(param, TyperArgument):
        return None
    if param.is_flag or param.count:
        return ""
    if param.metavar is not None:
        return param.metavar
    return _word_for(param.type_descriptor.annotation)


def _showing(label: str | None) -> Callable[[Any], str | None]:
    def display_type_rich(ctx: Any) -> str | None:
        return label

    return display_type_rich


def _relabel(params: list[Any]) -> None:
    for param in params:
        if isinstance(param, TyperOption | TyperArgument):
            param.display_type_rich = _showing(_type_label(param))  # type: ignore[method-assign,assignment]


def tidy(command: Any, ctx: Any) -> None:
    """Give ``command``'s parameters readable type labels and it a one-line summary."""
    _relabel(command.get_params(ctx))
    if command.help:
        paragraphs = [" ".join(p.split()) for p in inspect.cleandoc(command.help).split("\n\n")]
        command.help = "\n\n".join(paragraphs)
        command.short_help = command.short_help or paragraphs[0]


class AssayGroup(TyperGroup):
    """A command group whose commands' help reads well at 80 columns (see the module)."""

    def get_params(self, ctx: Any) -> Any:
        params = super().get_params(ctx)
        _relabel(params)
        return params

    def get_command(self, ctx: Any, cmd_name: str) -> Any:
        command = super().get_command(ctx, cmd_name)
        if command is not None:
            tidy(command, ctx)
        return command
