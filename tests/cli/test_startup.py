"""The command line starts without its heavy dependencies (see ``assay.cli.app``).

Each check runs in a fresh interpreter, since this test process has imported them all.
"""

import subprocess
import sys

import pytest

# What no command needs just to be parsed, listed or shown with --help. (pydantic is not
# listed: typer itself loads it to check some parameters.)
HEAVY = (
    "trafilatura",
    "lxml",
    "pydantic_ai",
    "openai",
    "anthropic",
    "textual",
    "httpx2",
    "numpy",
    "onnxruntime",
    "tokenizers",
    "pydantic_settings",
    "rich.table",
    "rich.live",
    "asyncio",
    "assay.config",
    "assay.protocols",
    "assay.gather.fetch",
    "assay.gather.search",
    "assay.models",
    "assay.claims",
    "assay.engines",
    "assay.store",
    "assay.lab",
    "assay.tui",
)

PROBE = """
import sys
{setup}
heavy = {heavy!r}
loaded = sorted(m for m in sys.modules if m in heavy or m.startswith(tuple(h + "." for h in heavy)))
print(" ".join(loaded))
"""


def loaded_after(setup: str, heavy: tuple[str, ...] = HEAVY) -> list[str]:
    code = PROBE.format(setup=setup, heavy=heavy)
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    )
    return done.stdout.split()


def test_building_the_whole_cli_imports_no_heavy_module() -> None:
    setup = "import typer.main; from assay.cli import app; typer.main.get_command(app)"
    assert loaded_after(setup) == []


@pytest.mark.parametrize(
    "argv",
    [["--version"], ["--help"], ["research", "--help"], ["index", "search", "--help"]],
)
def test_version_and_help_import_no_heavy_module(argv: list[str]) -> None:
    setup = (
        "import contextlib, io\nfrom assay.cli import app\n"
        "with contextlib.redirect_stdout(io.StringIO()), contextlib.suppress(SystemExit):\n"
        f"    app({argv!r}, standalone_mode=True)"
    )
    help_renders_tables = tuple(h for h in HEAVY if h != "rich.table")
    assert loaded_after(setup, help_renders_tables) == []


def test_index_search_loads_neither_settings_nor_protocols(tmp_path: object) -> None:
    setup = (
        "import contextlib, io\nfrom assay.cli import app\n"
        "with contextlib.redirect_stdout(io.StringIO()), contextlib.suppress(SystemExit):\n"
        f"    app(['index', 'search', '--json', '--home', {str(tmp_path)!r}, 'river'])"
    )
    heavy = tuple(h for h in HEAVY if h not in ("assay.store",))
    assert loaded_after(setup, heavy) == []


def test_the_probe_sees_a_heavy_import() -> None:
    """The check can fail: a command that does load the protocols is caught."""
    setup = "import assay.cli, assay.protocols.research"
    assert "assay.protocols" in loaded_after(setup)
