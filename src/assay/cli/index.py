"""``assay index``: the local full-text index at ``$ASSAY_HOME/index.sqlite``.

``add`` reads files and folders (.md .txt .html .pdf .json .jsonl) and makes their
passages' vectors with the bundled embedder; ``search`` is hybrid (words and meaning) unless
``--lexical``; ``embed`` makes the vectors an index lacks (one from before vectors, or from
another model). ``search``, ``stats``, ``embed`` and ``remove`` never create an index that
is not there. The embedder (numpy, onnxruntime) is imported only by the commands that use it.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

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
NoVectorsOpt = Annotated[
    bool,
    typer.Option(
        "--no-vectors", help="Store words only (faster); `assay index embed` adds vectors later."
    ),
]
LexicalOpt = Annotated[
    bool, typer.Option("--lexical", help="Rank by words only (bm25), not words and meaning.")
]

if TYPE_CHECKING:
    from assay.gather.index import LocalIndex


def _index_path(home: Path | None) -> Path:
    from assay.gather.index import INDEX_FILE

    return home_dir(home) / INDEX_FILE


def _open(path: Path, *, vectors: bool = True) -> LocalIndex:
    from assay.gather.index import LocalIndex

    if not vectors:
        return LocalIndex(path)
    from assay.reading.embed import default_embedder

    return LocalIndex(path, embedder=default_embedder())


def _progress(json: bool) -> Callable[[int, int], None] | None:
    """A counter of passages embedded on stderr, when it is a terminal (a large add takes
    minutes: about 15-40 passages a second on one core)."""
    if json or not sys.stderr.isatty():
        return None

    def show(done: int, total: int) -> None:
        end = "\n" if done >= total else ""
        typer.echo(f"\rembedding passages: {done:,} / {total:,}", err=True, nl=False)
        typer.echo(end, err=True, nl=False)

    return show


@index_app.command("add")
def add(
    paths: PathsArg, home: HomeOpt = None, json: JsonOpt = False, no_vectors: NoVectorsOpt = False
) -> None:
    """Add files and folders to the index (re-adding a file replaces its documents)."""
    path = _index_path(home)
    with _open(path, vectors=not no_vectors) as index:
        report = index.add_paths(paths, progress=_progress(json))
    if json:
        print_json({"index": str(path), **report.to_dict()})
        return
    for _, reason in report.skipped:
        typer.echo(f"skipped {reason}", err=True)
    for note in report.notes:
        typer.echo(f"warning: {note}", err=True)
    made = f" ({report.vectors} passage vectors made)" if report.vectors else ""
    typer.echo(f"indexed {report.documents} documents from {report.files} files into {path}{made}")


@index_app.command("embed")
def embed(home: HomeOpt = None, json: JsonOpt = False) -> None:
    """Make the passage vectors the index lacks (an index from before vectors, or from
    another model, or added with --no-vectors)."""
    path = _index_path(home)
    if not path.is_file():
        raise BadInputError(f"there is no index at {path}; add documents with `assay index add`")
    with _open(path) as index:
        made, notes = index.fill_vectors(_progress(json))
        status = index.vector_status()
    if json:
        print_json({"index": str(path), "vectors_made": made, "notes": notes,
                    "passages": status.passages, "vectors": status.vectors})  # fmt: skip
        return
    for note in notes:
        typer.echo(f"warning: {note}", err=True)
    typer.echo(f"made {made} passage vectors; {status.vectors} of {status.passages} have one")


@index_app.command("search")
def search(
    query: QueryArg,
    limit: LimitOpt = 10,
    home: HomeOpt = None,
    json: JsonOpt = False,
    lexical: LexicalOpt = False,
) -> None:
    """Search the index: by words and meaning (bm25 and vectors, fused), or --lexical."""
    path = _index_path(home)
    hits = []
    if path.is_file():
        with _open(path, vectors=not lexical) as index:
            hits = index.search(query, limit=limit, lexical=lexical)
            note = None if lexical else index.vector_status().note
        if note:
            typer.echo(f"warning: {note}", err=True)
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
    typer.echo(f"passages: {found.passages} ({found.vectors} with a vector)")
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
