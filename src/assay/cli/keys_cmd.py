"""``assay keys``: provider keys in keys.json (mode 0600); values are never printed."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Annotated

import typer

from assay.cli.help import AssayGroup
from assay.cli.options import CommonOptions, HomeOpt
from assay.cli.output import console, err_console, plain
from assay.errors import BadInputError

if TYPE_CHECKING:
    from assay.keys import KeyStore

keys_app = typer.Typer(
    cls=AssayGroup, help="Store provider keys (names only are ever shown).", no_args_is_help=True
)
NameArg = Annotated[str, typer.Argument(help="The key's variable name, e.g. BRAVE_API_KEY.")]


def _store(home: HomeOpt) -> KeyStore:
    from assay.keys import KeyStore

    settings = CommonOptions(home=home).settings()
    return KeyStore(settings.home, settings.keys)


@keys_app.command("set")
def set_key(name: NameArg, home: HomeOpt = None) -> None:
    """Store a key; the value is read from a hidden prompt, or from stdin when piped."""
    if sys.stdin.isatty():
        value = typer.prompt(f"value for {name}", hide_input=True)
    else:
        value = sys.stdin.readline().strip()
    if not value:
        raise BadInputError(f"no value given for {name}")
    store = _store(home)
    store.save(name, value)
    console.print(f"stored {name} in {store.path}")


@keys_app.command("list")
def list_keys(home: HomeOpt = None) -> None:
    """List the names of stored keys (none: says so on stderr, so stdout stays a list)."""
    store = _store(home)
    names = store.names()
    if not names:
        err_console.print(
            plain(f"no keys stored in {store.path}; add one with `assay keys set NAME`"),
            markup=False, soft_wrap=True,
        )  # fmt: skip
    for name in names:
        typer.echo(name)


@keys_app.command("remove")
def remove_key(name: NameArg, home: HomeOpt = None) -> None:
    """Remove a stored key."""
    if not _store(home).remove(name):
        raise BadInputError(f"no stored key named {name}")
    console.print(f"removed {name}")
