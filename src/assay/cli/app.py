"""The root Typer app: global flags, error mapping, and the command groups.

Errors become one line on stderr and the exit code their class documents (see
``assay.errors``); so does an ``OSError`` (``assay.cli.failures``: a path that cannot be
written is the user's to fix); ``--debug`` shows the traceback instead.

Start-up stays fast (``assay --version`` in well under 0.3 s) because building the CLI
imports only the command *declarations*. To add a command:

1. Put it in its own module ``assay/cli/<name>_cmd.py``. At module level import only the
   standard library, ``typer`` and the light CLI modules (``assay.cli.options``,
   ``assay.cli.output``, ``assay.errors``, ``assay.home``); names needed only in type
   hints go under ``if TYPE_CHECKING:``.
2. Import everything the command *runs* (protocols, settings, stores, models, rich
   tables, textual, asyncio...) inside the command function, or move the body to a
   module the function imports (as ``runs_cmd`` does with ``run_views``).
3. Register it below with ``app.command("name")(module.function)`` or
   ``app.add_typer(module.sub_app, name="name")``.

``tests/cli/test_startup.py`` builds the whole command tree in a fresh interpreter and
fails if any heavy module (its ``HEAVY`` list) was imported; ``benchmarks/cli_startup.py``
measures the result.
"""

from __future__ import annotations

import logging
import sys
from typing import Annotated, Any

import typer

from assay.__about__ import __version__
from assay.cli import (
    batch_cmd,
    config_cmd,
    deep_cmd,
    eval_cmd,
    export_cmd,
    keys_cmd,
    mcp_cmd,
    research_cmd,
    run_cmd,
    runs_cmd,
    serve_cmd,
    synth_cmd,
    tui_cmd,
    verify_cmd,
    web_research_cmd,
    worker_cmd,
)
from assay.cli.failures import os_error
from assay.cli.help import AssayGroup
from assay.cli.index import index_app
from assay.cli.lab import lab_app
from assay.cli.output import err_console, plain, print_error, print_traceback
from assay.errors import AssayError, RunCancelled


class _ErrorMappingGroup(AssayGroup):
    """Turns assay's errors into a one-line message and the documented exit code.

    A traceback (``--debug``, or an error that is a bug) is printed here, masked, rather
    than left to Python's hook: an exception's message or a line of its source can hold a
    key (a provider's 401 echoing it), and the hook would print it as it is.
    """

    def invoke(self, ctx: Any) -> Any:  # typer's vendored click Context
        try:
            return super().invoke(ctx)
        except AssayError as exc:
            _report(ctx, exc, exc)
            raise typer.Exit(exc.exit_code) from None
        except KeyboardInterrupt as exc:
            if _debugging(ctx):
                print_traceback(exc)
            else:
                _print_interrupted()
            raise typer.Exit(RunCancelled.exit_code) from None
        except (typer.TyperException, typer.Exit, typer.Abort, EOFError, BrokenPipeError):
            raise  # click's own: usage errors, exits, aborts, a reader gone (quiet exit 1)
        except OSError as exc:  # what the machine refused, mostly a path the user named
            error = os_error(exc)
            _report(ctx, exc, error)
            raise typer.Exit(error.exit_code) from None
        except Exception as exc:  # a bug: its traceback, with secrets masked
            print_traceback(exc)
            raise typer.Exit(1) from None


def _report(ctx: Any, exc: BaseException, error: AssayError) -> None:
    """The one line for ``error``, or with ``--debug`` the traceback of ``exc``."""
    if _debugging(ctx):
        print_traceback(exc)
    else:
        print_error(error)


def _debugging(ctx: Any) -> bool:
    return bool(ctx.obj and ctx.obj.get("debug"))  # set by the root callback, inside invoke


def _print_interrupted() -> None:
    from assay.protocols.runner import interrupted_run_ids  # loaded only after a run

    runs = interrupted_run_ids()
    if not runs:
        err_console.print("interrupted", highlight=False)
    for run_id in runs:
        err_console.print(plain(f"interrupted: run {run_id}"), markup=False, highlight=False)
        err_console.print(plain(f"resume with: assay resume {run_id}"), markup=False)


app = typer.Typer(
    name="assay",
    cls=_ErrorMappingGroup,
    no_args_is_help=True,
    add_completion=False,
    help="assay: research whose every 'verified' can be re-checked by code.",
    pretty_exceptions_enable=False,
)


def _show_version(value: bool) -> None:
    if value:
        typer.echo(f"assay {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    ctx: typer.Context,
    debug: Annotated[bool, typer.Option("--debug", help="Show tracebacks.")] = False,
    version: Annotated[
        bool,
        typer.Option("--version", callback=_show_version, is_eager=True, help="Show the version."),
    ] = False,
) -> None:
    ctx.obj = {"debug": debug}


app.command("research")(research_cmd.research)
app.command("ask")(research_cmd.ask)
app.command("resume")(research_cmd.resume)
app.command("runs")(runs_cmd.runs)
app.command("show")(runs_cmd.show)
app.command("verify")(verify_cmd.verify)
app.command("web-research")(web_research_cmd.web_research)
app.command("deep")(deep_cmd.deep)
app.command("synth")(synth_cmd.synth)
app.command("run")(run_cmd.run)
app.command("tui")(tui_cmd.tui)
app.command("export")(export_cmd.export)
app.command("serve")(serve_cmd.serve)
app.command("mcp")(mcp_cmd.mcp)
app.command("batch")(batch_cmd.batch)
app.command("eval")(eval_cmd.eval_command)
app.command("worker")(worker_cmd.worker)
app.add_typer(keys_cmd.keys_app, name="keys")
app.add_typer(config_cmd.config_app, name="config")
app.add_typer(index_app, name="index")
app.add_typer(lab_app, name="lab")


def main() -> None:
    """Console-script entry point."""
    # trafilatura reports every page it finds too short at WARNING on the root logger;
    # that is noise for a user (a skipped source is already an event).
    logging.getLogger("trafilatura").setLevel(logging.ERROR)
    sys.exit(app(standalone_mode=True))
