"""Citation precision of one report, from its run's files (DeepResearch Bench's measure).

A *citation* is a pair (statement, cited page): a report line (or the part of one a claim
marker closes) that states something and cites a page — a numbered source ``[n]``, a link
``<url>``, or a claim marker ``(claim_001: …)`` whose claim rests on that page. Each
distinct page a statement cites is one pair. A pair is *supported* when that page, as the
run fetched it, supports the statement:

1. the quotes, from that page, of the claims the line cites (stance ``supports``, found
   verbatim in the page's snapshot) with the page's title ground the statement
   (``assay.claims.grounding.grounded``: most of its content words, every number); or,
   where the line cites no claim quoting that page (a sentence a model wrote with ``[n]``),
2. some passage of one or two adjacent sentences of the snapshot does.

A page the run never fetched supports nothing. The figures:

- ``citations``: pairs; ``citations_supported``: supported pairs — the *effective
  citations* of the report;
- ``citation_precision``: supported pairs / pairs (None when the report cites nothing);
- ``urls_cited`` / ``urls_fetched``: distinct pages the report cites, and of them those in
  sources.jsonl (``urls_fetched_share``).

Lines that only show a quote (``- supports [1]: “…”``) are the page's words, not
statements, and the source list itself is the key to the numbers, not citations.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from assay.claims.grounding import grounded
from assay.language import report_texts
from assay.report.reading import CLOSEST_EVIDENCE, answer_prefixes
from assay.store.claims import ClaimLedger, ClaimRecord
from assay.store.markers import cited_urls
from assay.store.sources import SourceLedger, SourceRecord, snapshot_text
from assay.text import split_sentences

_MARKER = re.compile(r"\((claim_\d+): [a-z_]+\)")
_NUMBER = re.compile(r"\[(\d+)\]")
_LINK_TEXT = re.compile(r"<(?:https?|index|workspace)://[^\s<>]+>|\]\([^)\s]+\)")
_LISTED = re.compile(
    r"^\s*(?:(\d+)\.|\[(\d+)\])\s.*?<((?:https?|index|workspace)://[^\s<>]+)>"
)  # "1. Title — <url>" (a claims report), "[1] Title — <url>" (a deep report)
_QUOTED = re.compile(r"“[^”]*”|\"[^\"]*\"")
_WINDOW = 2  # adjacent snapshot sentences a passage may join


@dataclass(frozen=True)
class Statement:
    """One report line that cites: its text (markers and citations removed), the claims it
    cites and the pages it cites (URLs, as the report or the claim ledger gives them)."""

    text: str
    claim_ids: tuple[str, ...]
    urls: tuple[str, ...]


@dataclass(frozen=True)
class CitationFigures:
    citations: int = 0
    citations_supported: int = 0
    urls_cited: int = 0
    urls_fetched: int = 0

    @property
    def citation_precision(self) -> float | None:
        return self.citations_supported / self.citations if self.citations else None

    @property
    def urls_fetched_share(self) -> float | None:
        return self.urls_fetched / self.urls_cited if self.urls_cited else None

    def to_json(self) -> dict[str, int | float | None]:
        return {
            "citations": self.citations,
            "citations_supported": self.citations_supported,
            "citation_precision": self.citation_precision,
            "urls_cited_distinct": self.urls_cited,
            "urls_fetched": self.urls_fetched,
            "urls_fetched_share": self.urls_fetched_share,
        }


def citation_figures(run_dir: Path, report: str) -> CitationFigures:
    """The citation precision of ``report``, judged against the run in ``run_dir``."""
    records = SourceLedger(run_dir).records()
    claims = {c.id: c for c in ClaimLedger(run_dir).claims()}
    pages = _Pages(run_dir, records)
    statements = list(cited_statements(report, claims, records))
    pairs = supported = 0
    for statement in statements:
        for url in statement.urls:
            pairs += 1
            supported += pages.supports(url, statement, claims)
    cited = {u for s in statements for u in s.urls} | set(cited_urls(report))
    fetched = sum(pages.record(u) is not None for u in cited)
    return CitationFigures(pairs, supported, len(cited), fetched)


def cited_statements(
    report: str, claims: Mapping[str, ClaimRecord], records: Sequence[SourceRecord]
) -> Iterator[Statement]:
    """Every statement of ``report`` that cites a page: a line, or each part of a line
    that a claim marker closes (an answer line resting on two claims states two things,
    each on its own claim's pages)."""
    listed = numbered_sources(report)
    by_id = {r.id: r.url for r in records}
    for line in report.splitlines():
        if _LISTED.match(line) or line.lstrip().startswith("#") or _is_quotation(line):
            continue
        for part, ids in _parts(line):
            urls = [listed[n] for n in _NUMBER.findall(part) if n in listed]
            urls += cited_urls(part)
            urls += [by_id[s] for i in ids if i in claims for s in claims[i].source_ids
                     if s in by_id]  # fmt: skip
            text = statement_text(part)
            if urls and text:
                yield Statement(text, ids, tuple(dict.fromkeys(urls)))


def _parts(line: str) -> list[tuple[str, tuple[str, ...]]]:
    """The line's text before each claim marker, with the claims it names (a marker right
    after another names one more claim of the same text), then any text after the last."""
    parts: list[tuple[str, list[str]]] = []
    last = 0
    for marker in _MARKER.finditer(line):
        text = line[last : marker.start()]
        if parts and not statement_text(text):
            parts[-1][1].append(marker.group(1))
        else:
            parts.append((text, [marker.group(1)]))
        last = marker.end()
    if statement_text(line[last:]) or not parts:
        parts.append((line[last:], []))
    return [(text, tuple(dict.fromkeys(ids))) for text, ids in parts]


def body_lines(report: str) -> list[str]:
    """The report's lines before its source list (headed "## Sources" or "### Sources",
    in any language)."""
    headings = set(report_texts("sources"))
    lines = report.splitlines()
    ends = [
        n for n, line in enumerate(lines)
        if line.startswith("##") and line.lstrip("#").strip() in headings
    ]  # fmt: skip
    return lines[: ends[0]] if ends else lines


def numbered_sources(report: str) -> dict[str, str]:
    """The report's source list: number (as written) -> the URL it links."""
    listed = (_LISTED.match(line) for line in report.splitlines())
    return {m.group(1) or m.group(2): m.group(3) for m in listed if m}


def statement_text(line: str) -> str:
    """What a report line states: without its markers, citations, links and list bullet
    (an answer line: the claim it rests on)."""
    text = _NUMBER.sub("", _MARKER.sub("", _LINK_TEXT.sub("", line))).strip(" -;")
    for prefix in answer_prefixes():  # in any language the report is written in
        if text.startswith(prefix):
            return _basis_of(text.removeprefix(prefix))
    return text.strip("*").strip()


def _basis_of(answer: str) -> str:
    """The claim an answer line rests on, or the closest evidence a no-answer line shows
    (the line whole when it names none)."""
    for basis in report_texts("resting_on"):
        answer = answer.split(f" — {basis}")[-1]
    answer = answer.split(f"; {CLOSEST_EVIDENCE} ")[-1]
    return answer.strip()


def _is_quotation(line: str) -> bool:
    """A line that mostly shows a page's words in quotation marks (evidence, not a claim)."""
    quoted = sum(len(m.group()) for m in _QUOTED.finditer(line))
    return quoted * 2 >= len(line.strip()) > 0


class _Pages:
    """The run's fetched pages by URL, each snapshot read once and split once."""

    def __init__(self, run_dir: Path, records: Sequence[SourceRecord]) -> None:
        self._dir = run_dir
        self._by_url = {u: r for r in records for u in (r.url, r.final_url) if u}
        self._texts: dict[str, str] = {}
        self._passages: dict[str, list[str]] = {}

    def record(self, url: str) -> SourceRecord | None:
        return self._by_url.get(url)

    def text(self, record: SourceRecord) -> str:
        if record.id not in self._texts:
            path = self._dir / record.snapshot
            raw = path.read_text(encoding="utf-8") if path.is_file() else ""
            self._texts[record.id] = snapshot_text(raw)
        return self._texts[record.id]

    def supports(self, url: str, statement: Statement, claims: Mapping[str, ClaimRecord]) -> bool:
        record = self.record(url)
        if record is None:
            return False
        text = self.text(record)
        title = [record.title] if record.title else []
        quotes = [
            e.quote
            for i in statement.claim_ids
            if i in claims
            for e in claims[i].evidence
            if e.source_id == record.id and e.stance == "supports" and e.quote in text
        ]
        if quotes:
            return grounded(statement.text, [*quotes, *title]).supported
        if any(i in claims and record.id in claims[i].source_ids for i in statement.claim_ids):
            return False  # the claim cites this page but quotes none of it that supports
        return any(
            grounded(statement.text, [passage, *title]).supported
            for passage in self.passages(record)
        )

    def passages(self, record: SourceRecord) -> list[str]:
        if record.id not in self._passages:
            sentences = [s.text for s in split_sentences(self.text(record))]
            self._passages[record.id] = [
                " ".join(sentences[i : i + size])
                for size in range(1, _WINDOW + 1)
                for i in range(len(sentences) - size + 1)
            ]
        return self._passages[record.id]
