"""The JSON contract of an external agent that does its own work (``contract: json``).

An agent declared with ``contract: json`` in the roster searches and fact-checks for
itself. For each phase assay starts its command, writes one JSON object on its stdin and
reads one JSON object from its stdout:

    phase 1  in:  {"phase": 1, "agent": ..., "topic": ..., "task": ...}
             out: {"narrative": "prose citing its results as [1], [2] ...",
                   "results": [{"query": ..., "url": ..., "title": ..., "snippet": ...}]}
    phase 2  in:  {"phase": 2, "agent": ..., "topic": ..., "task": ...,
                   "statements": [{"number": 1, "author": ..., "text": ...}, ...]}
             out: {"verdicts": [{"statement": 1, "verdict": "VERIFIED" | "FALSE" |
                   "UNVERIFIABLE", "url": ..., "quote": ...}]}
    any phase   out: {"block": "reason"}   (it cannot proceed: it is [BLOCK]ed, with why)

POKE: a silent agent is sent ``SIGUSR1`` at ``poke_after`` (the spec's POKE: "complete
your search and post findings now; if blocked, signal [BLOCK] with reason"). It is
started with the signal ignored, so an agent that does not install a handler never
notices it; one that does should reply now with what it has, or with ``{"block": ...}``.
At ``block_after`` a still-silent agent is killed and [BLOCK]ed.

Nothing it says is taken on trust: assay fetches every result and every verdict URL
itself (its fetcher, robots.txt, pacing, snapshots). A narrative sentence becomes a claim
citing the fetched sources of its [n] (a sentence citing nothing that could be fetched is
dropped) and is verified like any other. A verdict stands only when its quote is found in
the page assay fetched; it is then recorded as the agent's own fact-check claim with that
quote as evidence, so ``assay verify`` re-derives it. A verdict whose quote is not there
is shown as UNVERIFIABLE, saying why. ``example_agent.py`` is a working agent (run it as
``python -m assay.protocols.synth.example_agent --searxng URL``).
"""

from __future__ import annotations

import contextlib
import json
from dataclasses import dataclass
from typing import Annotated, Literal

from pydantic import BaseModel, Field, ValidationError

from assay.claims.assessment import RunSources, assess
from assay.claims.normalize import locate
from assay.errors import ProviderError
from assay.events import ClaimCreated
from assay.gather.reader import ReadSource
from assay.gather.search.base import SearchResult
from assay.gather.session import GatherSession
from assay.models.output import written
from assay.protocols.synth.agents import Gathered, Narrative
from assay.protocols.synth.command import CommandWorker, parse_narrative
from assay.protocols.synth.narrative import Written
from assay.protocols.synth.timeouts import AgentBlocked
from assay.store.claims import ClaimRecord, Evidence, Stance
from assay.store.runs import Run

Verdict = Literal["VERIFIED", "FALSE", "UNVERIFIABLE"]


class RawResult(BaseModel):
    query: str = Field(default="", max_length=400)
    url: str = Field(min_length=1, max_length=2000)
    title: str = Field(default="", max_length=400)
    snippet: str = Field(default="", max_length=1000)


class Phase1Reply(BaseModel):
    narrative: str = Field(min_length=1, max_length=20_000)
    results: list[RawResult] = Field(min_length=1, max_length=20)


URL_CHARS = 2000
"""The longest URL an agent may write (browsers' common limit)."""


class AgentVerdict(BaseModel):
    statement: int = Field(ge=1)
    verdict: Verdict
    url: Annotated[str, written(URL_CHARS)] = ""
    quote: str = Field(default="", max_length=2000)


class Phase2Reply(BaseModel):
    verdicts: list[AgentVerdict] = Field(default_factory=list, max_length=200)


@dataclass(frozen=True)
class Statement:
    number: int
    author: str
    text: str
    claim_id: str


class ContractWorker(CommandWorker):
    """An external agent on the JSON contract (see the module docstring)."""

    async def ask(self, payload: dict[str, object], reply: type[BaseModel]) -> BaseModel:
        out = await self.run(json.dumps(payload, ensure_ascii=False))
        with contextlib.suppress(ValueError):
            said = json.loads(out)
            if isinstance(said, dict) and isinstance(said.get("block"), str):
                raise AgentBlocked(said["block"].strip()[:300] or "no reason given")
        try:
            return reply.model_validate_json(out.strip() or "{}")
        except ValidationError as exc:
            first = exc.errors()[0]
            where = ".".join(str(p) for p in first["loc"])
            raise ProviderError(f"{self.name}: its JSON breaks the contract at {where}: "
                                f"{first['msg']}") from None  # fmt: skip

    async def research(self, task: str, topic: str) -> Phase1Reply:
        payload = {"phase": 1, "agent": self.name, "topic": topic, "task": task}
        reply = await self.ask(payload, Phase1Reply)
        assert isinstance(reply, Phase1Reply)
        return reply

    async def check(self, task: str, topic: str, statements: list[Statement]) -> Phase2Reply:
        listed = [{"number": s.number, "author": s.author, "text": s.text} for s in statements]
        payload = {"phase": 2, "agent": self.name, "topic": topic, "task": task,
                   "statements": listed}  # fmt: skip
        reply = await self.ask(payload, Phase2Reply)
        assert isinstance(reply, Phase2Reply)
        return reply


async def fetch_results(
    session: GatherSession, reply: Phase1Reply
) -> tuple[Gathered, dict[int, int]]:
    """Assay reads every result the agent reported; result number → source number."""
    sources: list[ReadSource] = []
    numbers: dict[int, int] = {}
    for index, result in enumerate(reply.results, start=1):
        read = await session.read(result.url)
        if read is None:
            continue
        known = next((n for n, s in enumerate(sources, 1) if s.record.id == read.record.id), 0)
        if not known:
            sources.append(read)
            known = len(sources)
        numbers[index] = known
    results = [
        SearchResult(
            url=r.url, title=r.title, snippet=r.snippet, query=r.query, provider="agent", rank=n
        )
        for n, r in enumerate(reply.results, start=1)
    ]
    queries = list(dict.fromkeys(r.query for r in reply.results if r.query))
    return Gathered(queries, results, sources), numbers


def narrative_of(
    agent: str, reply: Phase1Reply, gathered: Gathered, numbers: dict[int, int]
) -> Narrative:
    """The agent's prose, each sentence citing the fetched sources of its [n]; a sentence
    that cites nothing assay could fetch is dropped (it could not be checked)."""
    paragraphs = []
    for paragraph in parse_narrative(reply.narrative, len(reply.results)):
        kept = []
        for sentence in paragraph:
            cites = list(dict.fromkeys(numbers[n] for n in sentence.cites if n in numbers))
            if cites:
                kept.append(Written(sentence.text, cites))
        if kept:
            paragraphs.append(kept)
    return Narrative(agent, gathered, paragraphs)


async def own_check(
    run: Run, session: GatherSession, checker: str, author: str, statement: Statement,
    verdict: AgentVerdict | None,
) -> tuple[str, str, str, str]:  # fmt: skip
    """(verdict, check claim id, url, quote) for one statement, the agent's verdict kept
    only when its quote is in the page assay fetched."""
    if verdict is None or verdict.verdict == "UNVERIFIABLE" or not verdict.url:
        return "UNVERIFIABLE", "", verdict.url if verdict else "", ""
    read = await session.read(verdict.url)
    spans = locate(read.text, verdict.quote) if read is not None and verdict.quote else []
    if read is None or not spans:
        why = "its quote is not in the page assay fetched" if read else "assay could not fetch it"
        return "UNVERIFIABLE", "", verdict.url, f"{checker} said {verdict.verdict}, but {why}"
    start, end = spans[0]
    stance: Stance = "supports" if verdict.verdict == "VERIFIED" else "refutes"
    ledger = run.claim_ledger
    claim = ClaimRecord(
        id=ledger.next_id(), text=statement.text, confidence="medium",
        sourceIds=[read.record.id], reason=f"{checker}'s own fact-check of {author}",
        created_by=f"{checker} fact-check of {author}",
        evidence=[Evidence(sourceId=read.record.id, quote=read.text[start:end], start=start,
                           end=end, stance=stance)],
    )  # fmt: skip
    sources = RunSources.load(run.source_ledger)
    status, reason, _ = assess(claim, sources, sources.origins(), unsure=False)
    claim = claim.model_copy(update={"status": status, "status_reason": reason,
                                     "verified_by": checker})  # fmt: skip
    ledger.append(claim)
    run.events.emit(ClaimCreated(id=claim.id, confidence="medium", source_ids=claim.source_ids))
    return verdict.verdict, claim.id, read.record.url, read.text[start:end]
