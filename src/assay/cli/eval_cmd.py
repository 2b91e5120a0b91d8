"""``assay eval DATASET`` and ``assay eval compare A B``."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from assay.cli.options import CommonOptions, with_common_options
from assay.cli.output import console, err_console, plain, print_json
from assay.errors import BadInputError


@with_common_options
def eval_command(
    target: Annotated[str, typer.Argument(help="DATASET (JSON/JSONL), or `compare`.")],
    others: Annotated[
        list[str] | None, typer.Argument(help="With `compare`: the two evals A B.")
    ] = None,
    limit: Annotated[int | None, typer.Option("--limit", min=1, help="Items to run.")] = None,
    offset: Annotated[int, typer.Option("--offset", min=0, help="Items to skip first.")] = 0,
    corpus: Annotated[
        Path | None,
        typer.Option("--corpus", help="Serve this corpus through the lab (folder or file)."),
    ] = None,
    out: Annotated[
        Path | None, typer.Option("--out", help="Output folder (default: eval-<dataset>).")
    ] = None,
    protocol: Annotated[
        str | None,
        typer.Option("--protocol", help="Default: research (questions) or check (claims)."),
    ] = None,
    concurrency: Annotated[int, typer.Option("--concurrency", min=1, max=32)] = 2,
    sites: Annotated[int, typer.Option("--sites", min=1, max=16, help="Lab sites.")] = 8,
    sources: Annotated[int | None, typer.Option("--sources", min=1, max=20)] = None,
    *,
    options: CommonOptions,
) -> None:
    """Run a dataset through `assay batch` and grade it: eval.json and report.html.

    A dataset holds questions with gold answers (and aliases) or claims with gold labels
    (SUPPORTS, REFUTES, NOT_ENOUGH_INFO, DISPUTED). `assay eval compare A B` sets two evals
    side by side with per-item wins and losses and paired significance tests."""
    if target == "compare":
        if not others or len(others) != 2:
            raise BadInputError("usage: assay eval compare A B (two eval folders or eval.json)")
        _compare(Path(others[0]), Path(others[1]), options.json)
        return
    if others:
        raise BadInputError(f"unexpected argument(s): {' '.join(others)}")
    from assay.cli.batch_display import batch_display
    from assay.evaluation.dataset import load_dataset
    from assay.evaluation.runner import EvalRequest, run_eval

    dataset = Path(target)
    folder = out or Path(f"eval-{dataset.stem}")
    request = EvalRequest(
        dataset=dataset, out_dir=folder, settings=options.settings(), limit=limit,
        offset=offset, corpus=corpus, sites=sites, concurrency=concurrency,
        protocol=protocol, sources=sources,
    )  # fmt: skip
    loaded = load_dataset(dataset, limit=limit, offset=offset)
    for problem in loaded.problems:  # skipped, named; the other items still run (as in batch)
        err_console.print(plain(f"error: {problem}"), markup=False, soft_wrap=True)
    with batch_display(len(loaded.items), enabled=not (options.quiet or options.json)) as display:
        data = run_eval(request, display.events())
    if options.json:
        print_json({"out": str(folder), "summary": data["summary"], "bad_lines": data["bad_lines"]})
    else:
        _print_summary(data)
        console.print(plain(f"eval: {folder / 'eval.json'}; report: {folder / 'report.html'}"),
                      markup=False, soft_wrap=True)  # fmt: skip
    if loaded.problems:
        raise typer.Exit(1)


def _print_summary(data: dict[str, Any]) -> None:
    s = data["summary"]
    if data["kind"] == "claims":
        line = f"accuracy {s['accuracy']:.3f}  macro-F1 {s['macro_f1']:.3f}"
    else:
        g = s["grades"]
        line = (f"EM {s['em']:.3f}  F1 {s['f1']:.3f}  correct {g['correct']} incorrect "
                f"{g['incorrect']} not attempted {g['not_attempted']}")  # fmt: skip
    console.print(plain(f"{s['items']} {data['kind']}: {line}"), markup=False, soft_wrap=True)
    precision = s["citation_precision"]
    shown = "n/a" if precision is None else f"{precision:.3f}"
    console.print(
        plain(f"citation precision {shown} ({s['effective_citations']} of {s['citations']} "
              f"statement-page pairs supported; {s['effective_citations_mean']:.2f} effective "
              "citations per report)"),
        markup=False, soft_wrap=True,
    )  # fmt: skip
    console.print(
        plain(f"fabricated URLs {s['fabricated_urls']}/{s['cited_urls']}  quotes missing "
              f"{s['quotes_missing']}/{s['quotes']}  tokens {s['tokens_total']}  model calls "
              f"{s['model_calls']}  elapsed {s['elapsed_seconds']:.1f}s (items "
              f"{s['item_seconds_total']:.1f}s summed)"),
        markup=False, soft_wrap=True,
    )  # fmt: skip


def _compare(a: Path, b: Path, as_json: bool) -> None:
    from rich.table import Table

    from assay.evaluation.compare import compare, load_eval

    result = compare(load_eval(a), load_eval(b))
    if as_json:
        print_json(result)
        return
    table = Table("figure", plain(str(a)), plain(str(b)), title=f"{result['items']} items")
    for name, (x, y) in result["figures"].items():
        table.add_row(name, _fmt(x), _fmt(y))
    console.print(table)
    console.print(
        f"B against A: {len(result['wins'])} wins, {len(result['losses'])} losses, "
        f"{result['ties']} ties; mean difference {result['mean_difference']:+.3f}; "
        f"paired bootstrap p = {result['p_bootstrap']:.3f}; sign test p = {result['p_sign']:.3f}"
    )
    for label, ids in (("wins", result["wins"]), ("losses", result["losses"])):
        if ids:
            err_console.print(plain(f"{label}: {', '.join(ids)}"), markup=False, soft_wrap=True)


def _fmt(value: object) -> str:
    return f"{value:.3f}" if isinstance(value, float) else str(value)
