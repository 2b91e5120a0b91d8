"""``assay batch``: every line of a questions file as its own run, several at once."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from assay.cli.options import CommonOptions, with_common_options
from assay.cli.output import err_console, plain, print_json
from assay.errors import BadInputError

if TYPE_CHECKING:
    from assay.batch import BatchFiles, BatchJob, BatchSpec, ResultRow

ProtocolOpt = Annotated[
    str,
    typer.Option("--protocol", help="research, ask, web-research, deep, or check (claims)."),
]
ConcurrencyOpt = Annotated[
    int, typer.Option("--concurrency", min=1, max=32, help="Runs in flight at once.")
]
BrokerOpt = Annotated[
    str | None,
    typer.Option("--broker", help="redis://HOST:PORT/DB: enqueue for `assay worker`s instead."),
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
    broker: BrokerOpt = None,
    *,
    options: CommonOptions,
) -> None:
    """Run every question of a JSONL file as its own run; resumable, one result line each.

    A re-run with the same --out skips questions already done and resumes interrupted
    runs from their files. Exit code 1 when a line was bad or a question failed."""
    from assay.batch import PROTOCOLS, BatchFiles, BatchSpec, read_jobs
    from assay.batch.driver import pending

    if protocol not in PROTOCOLS:
        raise BadInputError(f"--protocol must be one of {', '.join(PROTOCOLS)}, not {protocol!r}")
    if not questions.is_file():
        raise BadInputError(f"no such questions file: {questions}")
    jobs, bad = read_jobs(questions)
    for line in bad:
        err_console.print(plain(f"error: {line.describe(questions)}"), markup=False, soft_wrap=True)
    files = BatchFiles(out or default_results(questions))
    spec = BatchSpec(protocol=protocol, settings=options.settings())
    if broker is not None:
        rows, skipped = _through_queue(broker, jobs, spec, files, options)
    else:
        todo = pending(jobs, files)
        skipped = len(jobs) - len(todo)
        rows = _in_process(todo, spec, files, concurrency, options)
    if skipped and not options.json:
        err_console.print(
            plain(f"{skipped} question(s) already done in {files.results}; skipped"),
            markup=False,
            soft_wrap=True,
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


def _in_process(
    todo: list[BatchJob], spec: BatchSpec, files: BatchFiles, concurrency: int,
    options: CommonOptions,
) -> list[ResultRow]:  # fmt: skip
    import asyncio

    from assay.batch import run_batch
    from assay.cli.batch_display import batch_display

    with batch_display(len(todo), enabled=not (options.quiet or options.json)) as display:
        return asyncio.run(
            run_batch(todo, spec, files, concurrency=concurrency, events=display.events())
        )


def _through_queue(
    url: str, jobs: list[BatchJob], spec: BatchSpec, files: BatchFiles, options: CommonOptions
) -> tuple[list[ResultRow], int]:
    """Enqueue signed for `assay worker`s (which share this run store), then follow their
    rows; the rows, and how many questions were already done."""
    try:
        from assay.queue.envelope import queue_key
        from assay.queue.messages import batch_id, queue_files
        from assay.queue.submit import catch_up, follow, submit
    except ImportError as exc:
        extra = "pip install 'assay[queue]'"
        raise BadInputError(f"--broker needs the queue extra: {extra} ({exc})") from None
    from assay.batch.driver import pending
    from assay.cli.batch_display import batch_display

    key = queue_key(spec.settings)  # before anything is sent: no key, no batch
    batch = batch_id(files.results)
    shared = queue_files(spec.settings.home, batch)
    after = shared.count()  # before catching up: a row written meanwhile is followed
    catch_up(shared, files)
    todo = pending(jobs, files)
    sent = submit(url, todo, spec, batch, key)
    if not options.json:
        err_console.print(plain(f"enqueued {len(sent)} question(s) on {url}; waiting for workers"),
                          markup=False, soft_wrap=True)  # fmt: skip
    with batch_display(len(todo), enabled=not (options.quiet or options.json)) as display:
        rows = follow(url, shared, files, sent, display.ended, after=after)
    return rows, len(jobs) - len(todo)
