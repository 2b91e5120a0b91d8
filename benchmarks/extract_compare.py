"""Compare assay's HTML extraction (trafilatura) with resiliparse on real documentation pages.

    .venv/bin/python benchmarks/extract_compare.py [--limit N] [--max-bytes B] DIR...

Each DIR is sampled deterministically: its ``*.html`` files sorted, every k-th taken so that
at most N (default 300) remain; sampled pages over the fetcher's byte cap (``--max-bytes``,
default ``fetch.max_bytes``) are skipped, as the fetcher never hands those on. Both
extractors get the same decoded text; timings cover parsing and extraction (for assay also
title/author/date). Per extractor and DIR it prints pages/s, median and p95 ms per page, the
share of pages with empty output, the median output length, the share of pages with a
title, and a quality proxy:

* the reference is the page's main container, read with a plain lxml walk (neither
  extractor is involved): Sphinx's ``<div role="main">``, DocBook's body without its
  ``navheader``/``navfooter`` (PostgreSQL), else ``<main>`` / ``[role=main]``;
* text → lower-case alphanumeric words (``_`` and markdown punctuation are separators, so
  markdown escapes and ``**bold**`` do not cost words);
* recall = share of the reference's words (as a multiset) found in the output;
  precision = share of the output's words that belong to the reference (the rest is
  boilerplate kept: navigation, sidebars, footers); F1 of the two; all averaged per page.

A calibration row, the whole ``<body>`` read the same way as the reference, shows what
keeping everything scores (recall 1, precision = the main container's share of the page).
Not part of the test suite; it asserts nothing.
"""

from __future__ import annotations

import argparse
import math
import re
import statistics
import sys
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from lxml import etree
from lxml import html as lxml_html

from assay.config import FetchSettings
from assay.gather.extract import extract_html
from assay.gather.extract._decode import decode

FETCH_CAP: int = FetchSettings.model_fields["max_bytes"].default

_WORD = re.compile(r"[^\W_]+")
_NOT_TEXT = frozenset({"script", "style", "noscript", "template"})


@dataclass
class Outcome:
    text: str
    title: str | None
    seconds: float


@dataclass
class Tally:
    seconds: list[float] = field(default_factory=list)
    chars: list[int] = field(default_factory=list)
    empty: int = 0
    titled: int = 0
    recall: list[float] = field(default_factory=list)
    precision: list[float] = field(default_factory=list)
    f1: list[float] = field(default_factory=list)


def run_assay(html: str) -> Outcome:
    start = time.perf_counter()
    result = extract_html(html)
    return Outcome(result.text, result.title, time.perf_counter() - start)


def run_resiliparse(html: str) -> Outcome:
    from resiliparse.extract.html2text import extract_plain_text
    from resiliparse.parse.html import HTMLTree

    start = time.perf_counter()
    tree = HTMLTree.parse(html)
    text = extract_plain_text(
        tree,
        preserve_formatting=True,
        main_content=True,
        list_bullets=True,
        alt_texts=False,  # the reference (and assay) read no alt attributes
        links=False,
        comments=False,  # assay drops readers' comments too
    )
    title = tree.title
    return Outcome(text, title, time.perf_counter() - start)


def run_whole_body(html: str) -> Outcome:
    """Calibration, not a contender: every text node of <body>, as the reference is read."""
    start = time.perf_counter()
    root = lxml_html.document_fromstring(html.encode("utf-8", "replace"))
    body = root.find("body")
    text = _visible_text(body) if body is not None else ""
    return Outcome(text, root.findtext("head/title"), time.perf_counter() - start)


EXTRACTORS: dict[str, Callable[[str], Outcome]] = {
    "trafilatura (assay)": run_assay,
    "resiliparse": run_resiliparse,
    "(baseline: whole body)": run_whole_body,
}


def sample(directory: Path, limit: int) -> list[Path]:
    pages = sorted(directory.rglob("*.html"))
    step = max(1, math.ceil(len(pages) / limit))
    return pages[::step][:limit]


def main_container_text(html: str) -> str | None:
    """The text of the page's main container, or None when the page has no known one."""
    try:
        root = lxml_html.document_fromstring(html.encode("utf-8", "replace"))
    except (etree.ParserError, ValueError):
        return None
    containers = root.xpath("//div[@role='main']")
    if not containers:
        body = root.find("body")
        if body is not None and body.find("div[@class='navheader']") is not None:
            skip = {"navheader", "navfooter"}
            containers = [el for el in body if el.get("class") not in skip]
    if not containers:
        containers = root.xpath("//main | //*[@role='main']")[:1]
    if not containers:
        return None
    return " ".join(_visible_text(el) for el in containers)


def _visible_text(element: etree._Element) -> str:
    parts: list[str] = []

    def walk(node: etree._Element) -> None:
        if not isinstance(node.tag, str) or node.tag in _NOT_TEXT:
            return  # comments, scripts, styles: no text of theirs, their tails still count
        parts.append(node.text or "")
        for child in node:
            walk(child)
            parts.append(child.tail or "")

    walk(element)
    return " ".join(parts)


def words(text: str) -> Counter[str]:
    return Counter(_WORD.findall(text.lower()))


def score(tally: Tally, output: str, reference: str | None) -> None:
    if reference is None:
        return
    ref, out = words(reference), words(output)
    if not ref:
        return
    common = sum((ref & out).values())
    recall = common / sum(ref.values())
    precision = common / sum(out.values()) if out else 0.0
    tally.recall.append(recall)
    tally.precision.append(precision)
    tally.f1.append(2 * recall * precision / (recall + precision) if common else 0.0)


def measure(pages: Sequence[Path]) -> tuple[dict[str, Tally], int]:
    tallies = {name: Tally() for name in EXTRACTORS}
    with_reference = 0
    for index, path in enumerate(pages):
        html = decode(path.read_bytes(), sniff_markup=True)
        reference = main_container_text(html)
        with_reference += reference is not None
        for name, run in EXTRACTORS.items():
            if index == 0:
                run(html)  # warm-up: lazy imports and first-call set-up are not timed
            outcome = run(html)
            tally = tallies[name]
            tally.seconds.append(outcome.seconds)
            tally.chars.append(len(outcome.text.strip()))
            tally.empty += not outcome.text.strip()
            tally.titled += bool(outcome.title and outcome.title.strip())
            score(tally, outcome.text, reference)
    return tallies, with_reference


def _pct(part: float, whole: float) -> str:
    return f"{100 * part / whole:.1f}%" if whole else "-"


def _mean(values: list[float]) -> str:
    return f"{statistics.fmean(values):.3f}" if values else "-"


HEADER = (
    "extractor",
    "pages",
    "pages/s",
    "median ms",
    "p95 ms",
    "empty",
    "median chars",
    "title",
    "recall",
    "precision",
    "F1",
)


def row(name: str, tally: Tally) -> tuple[str, ...]:
    n = len(tally.seconds)
    ms = sorted(s * 1000 for s in tally.seconds)
    p95 = ms[min(n - 1, math.ceil(0.95 * n) - 1)]
    return (
        name,
        str(n),
        f"{n / sum(tally.seconds):.1f}",
        f"{statistics.median(ms):.2f}",
        f"{p95:.2f}",
        _pct(tally.empty, n),
        f"{statistics.median(tally.chars):.0f}",
        _pct(tally.titled, n),
        _mean(tally.recall),
        _mean(tally.precision),
        _mean(tally.f1),
    )


def print_table(title: str, rows: list[tuple[str, ...]]) -> None:
    widths = [max(len(r[i]) for r in [HEADER, *rows]) for i in range(len(HEADER))]
    print(f"\n{title}")
    for r in [HEADER, *rows]:
        cells = [r[0].ljust(widths[0])] + [
            c.rjust(w) for c, w in zip(r[1:], widths[1:], strict=True)
        ]
        print("  ".join(cells))


def merge(parts: list[Tally]) -> Tally:
    total = Tally()
    for part in parts:
        total.seconds += part.seconds
        total.chars += part.chars
        total.empty += part.empty
        total.titled += part.titled
        total.recall += part.recall
        total.precision += part.precision
        total.f1 += part.f1
    return total


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--limit", type=int, default=300, help="pages per directory (300)")
    parser.add_argument(
        "--max-bytes",
        type=int,
        default=FETCH_CAP,
        help=f"skip sampled pages larger than this; the fetcher's cap ({FETCH_CAP}); 0: no cap",
    )
    parser.add_argument("dirs", nargs="+", type=Path, metavar="DIR")
    args = parser.parse_args(argv)
    by_dir: list[dict[str, Tally]] = []
    for directory in args.dirs:
        sampled = sample(directory, args.limit)
        pages = [p for p in sampled if not args.max_bytes or p.stat().st_size <= args.max_bytes]
        if not pages:
            print(f"{directory}: no .html files", file=sys.stderr)
            return 2
        tallies, with_reference = measure(pages)
        by_dir.append(tallies)
        skipped = f", {len(sampled) - len(pages)} over {args.max_bytes} bytes skipped"
        print_table(
            f"{directory}  ({len(pages)} pages{skipped if len(pages) < len(sampled) else ''},"
            f" {with_reference} with a main container)",
            [row(name, tally) for name, tally in tallies.items()],
        )
    if len(by_dir) > 1:
        print_table(
            "all directories",
            [row(name, merge([t[name] for t in by_dir])) for name in EXTRACTORS],
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
