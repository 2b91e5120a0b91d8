"""``assay web-research``: the web-research skill from the command line.

Prints the output (markdown, or the JSON object for ``--format structured``) on stdout
and the report's path on stderr; with ``--json``, one JSON object and nothing else. Exit
codes: 0 done, 1 no usable source (the output lists each one and why), 2 bad input,
3 a budget ran out (partial report), 130 interrupted.
"""

from __future__ import annotations

import json
import sys
from typing import Annotated

import typer

from assay.cli.options import CommonOptions, with_common_options
from assay.cli.output import plain, print_json
from assay.errors import BudgetExhausted, RunError

UrlOpt = Annotated[
    list[str] | None,
    typer.Option("--url", help="A source URL to read directly (repeatable).", show_default=False),
]
KeywordOpt = Annotated[
    list[str] | None,
    typer.Option(
        "--keyword", help="A search query for the search provider (repeatable).", show_default=False
    ),
]
DepthOpt = Annotated[
    str, typer.Option("--depth", help="shallow, medium or deep: 3, 5 or 7 sources.")
]
FormatOpt = Annotated[str, typer.Option("--format", help="summary, report or structured.")]
HOW = "give a TOPIC and at least one --url URL or --keyword QUERY (both repeatable)"


@with_common_options
def web_research(
    topic: Annotated[
        str, typer.Argument(metavar="TOPIC", help="The topic to research.", show_default=False)
    ] = "",
    url: UrlOpt = None,
    keyword: KeywordOpt = None,
    depth: DepthOpt = "medium",
    output_format: FormatOpt = "summary",
    *,
    options: CommonOptions,
) -> None:
    """Research TOPIC from --url pages and --keyword searches: key points of each source
    as claims, verified, then a cited summary, report or structured JSON."""
    import asyncio

    from assay.cli.progress import progress
    from assay.protocols.contract import RunEnv
    from assay.protocols.registry import run_protocol
    from assay.protocols.web_research import WebResearchRequest
    from assay.store.runs import REPORT_JSON_FILE

    # checked before the settings are read, so a missing topic is its own one-line error
    request = WebResearchRequest.build(topic, url, keyword, depth, output_format, how=HOW)
    fields = {"topic": topic, "urls": url or [], "keywords": keyword or [], "depth": depth,
              "output_format": output_format, "how": HOW}  # fmt: skip
    settings = options.settings()
    with progress(not (options.quiet or options.json)) as listener:
        ran = asyncio.run(run_protocol("web-research", fields, RunEnv(settings, listener)))
    result = ran.detail
    if options.json:
        print_json(result.to_json())
    else:
        output = result.output
        text = (
            output
            if isinstance(output, str)
            else json.dumps(output, indent=2, ensure_ascii=False) + "\n"
        )
        sys.stdout.write(plain(text))
        sys.stdout.flush()
        if request.output_format == "structured" and result.status == "done":
            sys.stderr.write(f"json: {result.run_dir / REPORT_JSON_FILE}\n")
        sys.stderr.write(f"report: {result.report_path}\n")
    if result.status == "partial":
        if not options.json:
            sys.stderr.write(plain(f"partial: {result.reason}") + "\n")
        raise typer.Exit(BudgetExhausted.exit_code)
    if result.status == "no_sources":
        if not options.json:
            sys.stderr.write(plain(f"error: {result.reason}") + "\n")
        raise typer.Exit(RunError.exit_code)
