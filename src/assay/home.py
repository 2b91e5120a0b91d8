"""Where assay keeps its files: ``--home`` > ``ASSAY_HOME`` > the platform's data directory.

Kept apart from ``assay.config`` (pydantic-settings) so that commands which need only the
home, such as ``assay index search``, start without the settings machinery.
"""

from __future__ import annotations

import os
from pathlib import Path

import platformdirs

HOME_VARIABLE = "ASSAY_HOME"


def default_home() -> Path:
    """ASSAY_HOME if set, else the platform's user data directory."""
    explicit = os.environ.get(HOME_VARIABLE)
    if explicit:
        return Path(explicit).expanduser()
    return Path(platformdirs.user_data_dir("assay"))


def resolve_home(given: Path | str | None) -> Path:
    """The home a flag chose, or the default one (the rule ``load_settings`` applies)."""
    return Path(given).expanduser() if given is not None else default_home()


def config_path(home: Path | None = None) -> Path:
    """Where config.toml is read from, in ``home`` or the default home."""
    return (home or default_home()) / "config.toml"
