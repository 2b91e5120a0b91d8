"""Source collection: urls read directly, keywords through the configured search provider.

Candidates are the given urls (in order) and then the search results (query order, rank
order). They are read in waves until the depth's count of usable sources is reached: a
wave reads as many candidates as sources are still missing, concurrently (the fetcher
keeps ≥1 s between requests to one domain and runs domains in parallel), and each source
is turned into key points — claims appended at once — as soon as it and every source
before it are read, so the claim ids follow the candidates' order whatever the network
does. A source that fails the fetcher's policy (scheme, robots.txt, pacing, type, size,
tokens), that repeats a page already used, that a search found but that is not about the
topic, or that has no key point, is skipped with its reason. A page cut at the size cap is
kept but marked truncated, and does not count toward the depth.

When the candidates run out before the depth is met, the keywords are searched again with
new queries (other strategies on the topic, ``MORE_SEARCHES`` rounds at most) before the
run settles for "minimum not met".
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field

from assay.claims.standalone import page_subject
from assay.engines.extractive.asking import strategy_queries
from assay.engines.extractive.planner import expand_queries
from assay.gather.reader import ReadSource
from assay.gather.search.web_search import MAX_QUERIES, MAX_QUERY_CHARS, MIN_QUERIES
from assay.gather.session import GatherSession
from assay.protocols.web_research.results import Skipped, SourceFindings, WebResearchRequest
from assay.reading.relevance import best_relevance

Process = Callable[[ReadSource], Awaitable[SourceFindings | None]]
MORE_SEARCHES = 2
"""Extra search rounds when the first search did not give enough usable sources."""


def _clip(query: str) -> str:
    query = " ".join(query.split())
    return query if len(query) <= MAX_QUERY_CHARS else query[:MAX_QUERY_CHARS].rsplit(" ", 1)[0]


def search_queries(topic: str, keywords: Sequence[str]) -> tuple[list[str], list[str]]:
    """The webSearch queries for ``keywords`` (3–10 of them) and any warnings: the keywords
    as given, trimmed to 10, padded to 3 with queries derived from the topic."""
    warnings = []
    queries = list(dict.fromkeys(_clip(k) for k in keywords if _clip(k)))
    if len(queries) > MAX_QUERIES:
        dropped = ", ".join(queries[MAX_QUERIES:])
        warnings.append(f"webSearch takes at most {MAX_QUERIES} queries; not searched: {dropped}")
        queries = queries[:MAX_QUERIES]
    seen = {q.casefold() for q in queries}
    for extra in expand_queries(topic, count=MAX_QUERIES):
        if len(queries) >= MIN_QUERIES:
            break
        if extra.casefold() not in seen:
            seen.add(extra.casefold())
            queries.append(extra)
    return queries, warnings


LEAD_CHARS = 1_000  # a page's relevance is read on its title and its lead, as research's is


def relevant(topic: str, keywords: Sequence[str], text: str, title: str = "") -> bool:
    """Whether a page a search found is about the topic or one of its keywords, read by
    meaning on its title and lead (``reading.relevance``: the words it shares with them
    are one feature of the fitted score, never the decision on their own)."""
    lead = text[:LEAD_CHARS]
    return best_relevance([topic, *keywords], lead, title=page_subject(title)).relevant


@dataclass
class Collected:
    """The usable sources (in candidate order), their texts, and what was skipped."""

    findings: list[SourceFindings] = field(default_factory=list)
    texts: dict[str, str] = field(default_factory=dict)
    skipped: list[Skipped] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    candidates: int = 0
    searched: list[str] = field(default_factory=list)

    def usable(self) -> int:
        """Sources that count toward the depth (a page cut at the size cap does not)."""
        return sum(1 for f in self.findings if not f.truncated)


async def collect(
    session: GatherSession,
    request: WebResearchRequest,
    process: Process,
    skip_reasons: Mapping[str, str],
    out: Collected | None = None,
    capped: Collection[str] = (),
) -> Collected:
    """Read candidates until ``request.target`` sources are usable (see the docstring).

    ``process`` turns a read source into findings (None: no key point); ``skip_reasons``
    is filled by the run's ``source.skipped`` events, url → reason, and ``capped`` by its
    size-cap warnings (the URLs cut at the cap). ``out`` is filled as sources are read, so
    a run stopped by its budget still knows what it had.
    """
    out = out if out is not None else Collected()
    candidates: list[tuple[str, bool]] = [(url, False) for url in request.urls]
    if request.keywords:
        queries, warnings = search_queries(request.topic, request.keywords)
        out.warnings += warnings
        candidates += await _search(session, queries, candidates, out)
        if not candidates:
            out.warnings.append(f"the search ({session.provider.name}) found no results")
    out.candidates = len(candidates)
    position, rounds = 0, 0
    while out.usable() < request.target:
        if position >= len(candidates):
            if not request.keywords or rounds >= MORE_SEARCHES:
                break
            rounds += 1
            more = _more_queries(request.topic, rounds, out.searched)
            found = await _search(session, more, candidates, out)
            out.warnings.append(
                f"depth {request.depth} not met ({out.usable()} of {request.target} usable "
                f"sources): searched again ({'; '.join(more)}), {len(found)} new candidate(s)"
            )
            candidates += found
            out.candidates = len(candidates)
            if not found:
                continue
        wave = candidates[position : position + request.target - out.usable()]
        position += len(wave)
        await _read_wave(session, request, wave, process, skip_reasons, out, capped)
    unread = [url for url, searched in candidates[position:] if not searched]
    if unread:
        out.warnings.append(
            f"{len(unread)} given URL(s) not read: depth {request.depth} uses "
            f"{request.target} sources ({', '.join(unread)})"
        )
    return out


async def _search(
    session: GatherSession, queries: list[str], known: list[tuple[str, bool]], out: Collected
) -> list[tuple[str, bool]]:
    """New candidates (URLs not seen yet) from one webSearch call."""
    out.searched += queries
    outcome = await session.search(queries)
    out.warnings += [f"search for {q!r} failed: {e}" for q, e in outcome.errors.items()]
    seen = {url for url, _ in known}
    return [(url, True) for url in dict.fromkeys(r.url for r in outcome.results) if url not in seen]


def _more_queries(topic: str, round_number: int, tried: Sequence[str]) -> list[str]:
    """3 to 10 queries of another strategy on the topic, none tried before."""
    seen = {q.casefold() for q in tried}
    fresh = [
        q
        for q in [*strategy_queries(topic, round_number, 4), *expand_queries(topic, count=10)]
        if q.casefold() not in seen
    ]
    fresh = list(dict.fromkeys(fresh))[: MIN_QUERIES + 1]
    for suffix in ("overview", "facts", "sources", "history"):
        if len(fresh) >= MIN_QUERIES:
            break
        candidate = _clip(f"{topic} {suffix} {round_number}")
        if candidate.casefold() not in seen and candidate not in fresh:
            fresh.append(candidate)
    return fresh


async def _read_wave(
    session: GatherSession,
    request: WebResearchRequest,
    wave: list[tuple[str, bool]],
    process: Process,
    skip_reasons: Mapping[str, str],
    out: Collected,
    capped: Collection[str] = (),
) -> None:
    tasks = [asyncio.create_task(session.read(url)) for url, _ in wave]
    try:
        for (url, searched), task in zip(wave, tasks, strict=True):
            read = await task
            reason = _unusable(read, searched, request, out)
            if reason is None and read is not None:
                findings = await process(read)
                if findings is None:
                    reason = "no key points found in its text"
                else:
                    findings.truncated = url in capped or read.record.url in capped
                    out.findings.append(findings)
                    out.texts[read.record.id] = read.text
                    continue
            out.skipped.append(Skipped(url, reason or skip_reasons.get(url, "could not be read")))
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)


def _unusable(
    read: ReadSource | None, searched: bool, request: WebResearchRequest, out: Collected
) -> str | None:
    if read is None:
        return None  # the reader's source.skipped event has the reason
    for used in out.findings:
        if used.record.id == read.record.id:
            return f"the same page as {used.url}"
    title = read.record.title or ""
    if searched and not relevant(request.topic, request.keywords, read.text, title):
        return "not about the topic (a search result its title and lead do not speak to)"
    return None
