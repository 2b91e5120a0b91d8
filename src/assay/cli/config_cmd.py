"""``assay config``: the effective configuration, secrets masked."""

from __future__ import annotations

import json

import typer

from assay.cli.help import AssayGroup
from assay.cli.options import CommonOptions, HomeOpt, home_dir, with_common_options
from assay.cli.output import console, print_json

config_app = typer.Typer(
    cls=AssayGroup, help="Show the effective configuration.", no_args_is_help=True
)


@config_app.command("show")
@with_common_options
def show(options: CommonOptions) -> None:
    """Print the configuration a run would use: defaults < config.toml < ASSAY_* < flags."""
    from assay.config_view import effective_config
    from assay.home import config_path

    settings = options.settings()
    shown = effective_config(settings)
    if options.json:
        print_json(shown)
        return
    console.print(f"# {config_path(settings.home)}", style="dim")
    console.print(json.dumps(shown, indent=2), markup=False)


@config_app.command("path")
def path(home: HomeOpt = None) -> None:
    """Print where config.toml is read from."""
    from assay.home import config_path

    typer.echo(str(config_path(home_dir(home))))
