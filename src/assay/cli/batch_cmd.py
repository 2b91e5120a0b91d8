"""``assay batch``: every line of a questions file as its own run, several at once."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Annotated

import typer

from assay.cli.options import CommonOptions, with_common_options
from assay.cli.output import err_console, plain, print_json
from assay.errors import BadInputError

ProtocolOpt = Annotated[
    str,
    typer.Option("--protocol", help="research, ask, web-research, deep, or check (claims)."),
]
ConcurrencyOpt = Annotated[
    int, typer.Option("--concurrency", min=1, max=32, help="Runs in flight at once.")
]
OutOpt = Annotated[
    Path | None,
    typer.Option("--out", help="Results JSONL (default: QUESTIONS.results.jsonl beside it)."),
]


def default_results(questions: Path) -> Path:
    return questions.with_name(questions.stem + ".results.jsonl")


@with_common_options
def batch(
    questions: Annotated[Path, typer.Argument(help="JSONL: one {id, question, ...} per line.")],
    protocol: ProtocolOpt = "research",
    concurrency: ConcurrencyOpt = 2,
    out: OutOpt = None,
    *,
    options: CommonOptions,
) -> None:
    """Run every question of a JSONL file as its own run; resumable, one result line each.

    A re-run with the same --out skips questions already done and resumes interrupted
    runs from their files. Exit code 1 when a line was bad or a question failed."""
    from assay.batch import PROTOCOLS, BatchFiles, BatchSpec, read_jobs, run_batch
    from assay.batch.driver import pending
    from assay.cli.batch_display import batch_display

    if protocol not in PROTOCOLS:
        raise BadInputError(f"--protocol must be one of {', '.join(PROTOCOLS)}, not {protocol!r}")
    if not questions.is_file():
        raise BadInputError(f"no such questions file: {questions}")
    jobs, bad = read_jobs(questions)
    for line in bad:
        err_console.print(plain(f"error: {line.describe(questions)}"), markup=False, soft_wrap=True)
    files = BatchFiles(out or default_results(questions))
    spec = BatchSpec(protocol=protocol, settings=options.settings())
    todo = pending(jobs, files)
    skipped = len(jobs) - len(todo)
    if skipped and not options.json:
        err_console.print(
            plain(f"{skipped} question(s) already done in {files.results}; skipped"),
            markup=False,
            soft_wrap=True,
        )
    with batch_display(len(todo), enabled=not (options.quiet or options.json)) as display:
        rows = asyncio.run(
            run_batch(todo, spec, files, concurrency=concurrency, events=display.events())
        )
    failed = [r for r in rows if r.status != "done"]
    summary = {
        "results": str(files.results), "questions": len(jobs), "skipped": skipped,
        "ran": len(rows), "failed": len(failed), "bad_lines": [b.line for b in bad],
    }  # fmt: skip
    if options.json:
        print_json(summary)
    else:
        err_console.print(
            plain(f"{len(rows) - len(failed)} done, {len(failed)} failed, {len(bad)} bad line(s);"
                  f" results: {files.results}"),
            markup=False, soft_wrap=True,
        )  # fmt: skip
    if failed or bad:
        raise typer.Exit(1)
