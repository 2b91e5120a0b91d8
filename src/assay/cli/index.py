"""``assay index``: the local full-text index at ``$ASSAY_HOME/index.sqlite``.

``add`` reads files and folders (.md .txt .html .pdf .json .jsonl); ``search``, ``stats``
and ``remove`` never create an index that is not there.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from assay.cli.help import AssayGroup
from assay.cli.options import HomeOpt, JsonOpt, home_dir
from assay.cli.output import print_json
from assay.errors import BadInputError

index_app = typer.Typer(
    cls=AssayGroup, help="Build and search the local full-text index.", no_args_is_help=True
)

PathsArg = Annotated[
    list[Path], typer.Argument(help="Files or folders (read recursively).", show_default=False)
]
QueryArg = Annotated[str, typer.Argument(help="Words to look for (any text is safe).")]
LimitOpt = Annotated[int, typer.Option("--limit", "-n", min=1, max=1000, help="Hits to show.")]
TargetArg = Annotated[
    str, typer.Argument(help="A doc id, a file that was added, or a folder of added files.")
]


def _index_path(home: Path | None) -> Path:
    from assay.gather.index import INDEX_FILE

    return home_dir(home) / INDEX_FILE


@index_app.command("add")
def add(paths: PathsArg, home: HomeOpt = None, json: JsonOpt = False) -> None:
    """Add files and folders to the index (re-adding a file replaces its documents)."""
    from assay.gather.index import LocalIndex

    path = _index_path(home)
    with LocalIndex(path) as index:
        report = index.add_paths(paths)
    if json:
        print_json({"index": str(path), **report.to_dict()})
        return
    for _, reason in report.skipped:
        typer.echo(f"skipped {reason}", err=True)
    for note in report.notes:
        typer.echo(f"warning: {note}", err=True)
    typer.echo(f"indexed {report.documents} documents from {report.files} files into {path}")


@index_app.command("search")
def search(
    query: QueryArg, limit: LimitOpt = 10, home: HomeOpt = None, json: JsonOpt = False
) -> None:
    """Search the index (bm25 ranking)."""
    from assay.gather.index import LocalIndex

    path = _index_path(home)
    hits = []
    if path.is_file():
        with LocalIndex(path) as index:
            hits = index.search(query, limit=limit)
    if json:
        print_json([hit.to_dict() for hit in hits])
        return
    if not hits:
        typer.echo("no hits", err=True)
    for rank, hit in enumerate(hits, start=1):
        typer.echo(f"{rank}. {hit.title}  [{hit.score:.2f}]\n   {hit.url}\n   {hit.snippet}")


@index_app.command("stats")
def stats(home: HomeOpt = None, json: JsonOpt = False) -> None:
    """How many documents and sources the index holds, and its size on disk."""
    from assay.gather.index import IndexStats, LocalIndex

    path = _index_path(home)
    if path.is_file():
        with LocalIndex(path) as index:
            found = index.stats()
    else:
        found = IndexStats(str(path), 0, 0, 0, {})
    if json:
        print_json(found.to_dict())
        return
    typer.echo(f"index: {found.path}")
    typer.echo(f"documents: {found.documents}")
    typer.echo(f"sources: {found.sources}")
    typer.echo(f"size: {found.size_bytes} bytes")
    for content_type, count in found.content_types.items():
        typer.echo(f"  {content_type}: {count}")


@index_app.command("remove")
def remove(target: TargetArg, home: HomeOpt = None, json: JsonOpt = False) -> None:
    """Remove a document by id, every document of a file, or of every file under a folder."""
    from assay.gather.index import LocalIndex

    path = _index_path(home)
    removed = 0
    if path.is_file():
        with LocalIndex(path) as index:
            removed = index.remove(target)
    if not removed:
        raise BadInputError(f"nothing in the index matches {target!r}")
    if json:
        print_json({"removed": removed})
        return
    typer.echo(f"removed {removed} documents")
