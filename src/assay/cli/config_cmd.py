"""``assay config``: the effective configuration, secrets masked."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

import typer

from assay.cli.help import AssayGroup
from assay.cli.options import CommonOptions, HomeOpt, home_dir, with_common_options
from assay.cli.output import console, print_json
from assay.errors import AssayError

if TYPE_CHECKING:
    from assay.keys import KeyStore

config_app = typer.Typer(
    cls=AssayGroup, help="Show the effective configuration.", no_args_is_help=True
)


@config_app.command("show")
@with_common_options
def show(options: CommonOptions) -> None:
    """Print the configuration a run would use: defaults < config.toml < ASSAY_* < flags."""
    from assay.home import config_path
    from assay.keys import KeyStore
    from assay.plugins import MODELS_GROUP, SEARCH_GROUP, plugin_names
    from assay.redact import mask

    settings = options.settings()
    store = KeyStore(settings.home, settings.keys)
    shown: dict[str, Any] = settings.snapshot()
    shown["keys"] = {name: _key_state(store, name, ref) for name, ref in settings.keys.items()}
    shown["key_store"] = {name: "set (masked)" for name in store.names()}
    shown["plugins"] = {
        group.removeprefix("assay."): plugin_names(group) for group in (SEARCH_GROUP, MODELS_GROUP)
    }
    # Belt and braces: no resolved secret value may appear anywhere in the output.
    text = mask(json.dumps(shown, indent=2), store.known_secret_values())
    if options.json:
        print_json(json.loads(text))
        return
    console.print(f"# {config_path(settings.home)}", style="dim")
    console.print(text, markup=False)


def _key_state(store: KeyStore, name: str, reference: str) -> str:
    try:
        found = store.get(name)
    except AssayError:
        found = None
    return f"{reference} ({'set' if found else 'not set'})"


@config_app.command("path")
def path(home: HomeOpt = None) -> None:
    """Print where config.toml is read from."""
    from assay.home import config_path

    typer.echo(str(config_path(home_dir(home))))
