"""The external-command agent: any CLI that reads its phase prompt on stdin and writes its
section on stdout, so other agent CLIs can sit on the panel.

Phase 1: assay searches with the agent's declared tool and hands the command the numbered
sources it read (title, URL, text); the command writes narrative prose citing them as
[n]. Its output is parsed like any agent's: headings and anything from a ``####`` line on
are dropped (assay writes the raw-results table from the real search), raw URLs are
removed from the prose, and every sentence becomes a claim citing its [n] sources (all
sources when it cites none), checked by the verification engine.

Phase 3: the command is given the numbered statements that survived the fact-checks and
writes prose; each sentence is kept only as the statement it matches (by ``[n]`` or by
its words), so nothing the command adds unchecked reaches the report.

POKE (the agent contract): ``SIGUSR1``, meaning the spec's POKE text ("complete your search
and post findings now; if blocked, signal [BLOCK] with reason"). The command is started
with SIGUSR1 *ignored* (a tiny launcher sets the disposition, then execs it; an ignored
signal stays ignored across exec), so a command that does not handle the POKE never
notices it, and its default action (terminate) can never kill it: an agent that handles
it installs its own handler (``example_agent.py`` does). An agent may answer a POKE, or
any task, with a first line ``[BLOCK] reason`` (the JSON contract: ``{"block": reason}``):
it is blocked with that reason. Only at ``block_after`` is a silent process killed.
"""

from __future__ import annotations

import asyncio
import contextlib
import re
import shutil
import signal
import sys

from assay.errors import ProviderError
from assay.protocols.synth.agents import CodeQueries, Gathered
from assay.protocols.synth.narrative import Written
from assay.protocols.synth.timeouts import AgentBlocked
from assay.text import content_words, split_sentences

_CITE = re.compile(r"\[(\d+)\]")
_RAW_URL = re.compile(r"<?(?:https?|index|workspace)://[^\s<>)\]]+>?")
_LINK = re.compile(r"\[([^\]]*)\]\([^)]*\)")
SOURCE_CHARS = 1_500
MATCH = 0.6
POKE_SIGNAL = signal.SIGUSR1
# Starts the agent's command with the POKE signal ignored (see the module docstring).
_LAUNCHER = (
    "import os, signal, sys\n"
    f"signal.signal({int(POKE_SIGNAL)}, signal.SIG_IGN)\n"
    "os.execvp(sys.argv[1], sys.argv[1:])\n"
)
_BLOCK = re.compile(r"^\s*\[BLOCK\][ \t:]*(.*)")


def launch_command(command: tuple[str, ...]) -> tuple[str, ...]:
    """The argv that runs ``command`` with the POKE signal ignored."""
    return (sys.executable, "-c", _LAUNCHER, *command)


def blocked_reason(text: str) -> str | None:
    """The reason of an agent's ``[BLOCK] reason`` reply (its first non-blank line)."""
    first = next((line for line in text.splitlines() if line.strip()), "")
    found = _BLOCK.match(first)
    return (found.group(1).strip() or "no reason given") if found else None


class CommandWorker(CodeQueries):
    def __init__(self, command: tuple[str, ...], *, name: str) -> None:
        self.command = command
        self.name = name
        self.process: asyncio.subprocess.Process | None = None

    def poke(self, text: str) -> None:
        if self.process is not None and self.process.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                self.process.send_signal(signal.SIGUSR1)

    async def run(self, prompt: str) -> str:
        """The command's stdout for ``prompt`` on its stdin; AgentBlocked when it answers
        ``[BLOCK] reason``."""
        if shutil.which(self.command[0]) is None:
            raise ProviderError(f"{self.name}: cannot start {self.command[0]}: not found")
        try:
            self.process = await asyncio.create_subprocess_exec(
                *launch_command(self.command),
                stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.PIPE,
            )
        except OSError as exc:
            raise ProviderError(f"{self.name}: cannot start {self.command[0]}: {exc}") from None
        process = self.process
        try:
            out, err = await process.communicate(prompt.encode("utf-8"))
        except asyncio.CancelledError:
            with contextlib.suppress(ProcessLookupError):
                process.kill()
            with contextlib.suppress(Exception):
                await asyncio.shield(process.wait())
            raise
        if process.returncode != 0:
            detail = err.decode("utf-8", "replace").strip().splitlines()[-1:] or [""]
            raise ProviderError(f"{self.name}: exited with {process.returncode} {detail[0][:200]}")
        text = out.decode("utf-8", "replace")
        reason = blocked_reason(text)
        if reason is not None:
            raise AgentBlocked(reason[:300])
        return text

    async def write(self, task: str, topic: str, gathered: Gathered) -> list[list[Written]]:
        listing = "\n\n".join(
            f"[{n}] {s.record.title or s.record.url}\nURL: {s.record.url}\n{s.text[:SOURCE_CHARS]}"
            for n, s in enumerate(gathered.sources, start=1)
        )
        prompt = f"{task}\n\nSOURCES (your search results, cite them as [n]):\n\n{listing}\n"
        return parse_narrative(await self.run(prompt), len(gathered.sources))

    async def arrange(self, task: str, statements: list[str]) -> list[list[int]]:
        block = "\n".join(f"[{n}] {s}" for n, s in enumerate(statements, start=1))
        text = await self.run(f"{task}\n\nVERIFIED STATEMENTS (cite as [n]):\n{block}\n")
        return match_statements(text, statements)


def _prose_blocks(text: str) -> list[str]:
    kept: list[str] = []
    for line in text.splitlines():
        if line.startswith("####"):
            break
        kept.append("" if line.lstrip().startswith(("#", "|", "[PHASE", "[DONE]")) else line)
    return [b.strip() for b in "\n".join(kept).split("\n\n") if b.strip()]


def parse_narrative(text: str, sources: int) -> list[list[Written]]:
    """Paragraphs of sentences with their [n] citations (out-of-range ones dropped)."""
    paragraphs = []
    for block in _prose_blocks(text):
        block = _RAW_URL.sub("", _LINK.sub(r"\1", block))
        sentences = []
        for sentence in split_sentences(block):
            cites = [int(n) for n in _CITE.findall(sentence.text) if 1 <= int(n) <= sources]
            plain = " ".join(_CITE.sub("", sentence.text).split())
            plain = re.sub(r"\s+([.,;:!?])", r"\1", plain)
            if len(content_words(plain)) >= 2:
                sentences.append(Written(plain, cites or list(range(1, sources + 1))))
        if sentences:
            paragraphs.append(sentences)
    return paragraphs[:5]


def match_statements(text: str, statements: list[str]) -> list[list[int]]:
    """Each sentence of ``text`` as the numbered statement it cites or restates."""
    words = [set(content_words(s)) for s in statements]
    out: list[list[int]] = []
    seen: set[int] = set()
    for block in _prose_blocks(text):
        paragraph = []
        for sentence in split_sentences(block):
            cited = [int(n) for n in _CITE.findall(sentence.text)]
            picks = [n for n in cited if 1 <= n <= len(statements)]
            if not picks:
                mine = set(content_words(sentence.text))
                scores = [len(mine & w) / len(w) if w else 0.0 for w in words]
                best = max(range(len(scores)), key=scores.__getitem__, default=-1)
                picks = [best + 1] if best >= 0 and scores[best] >= MATCH else []
            for n in picks:
                if n not in seen:
                    seen.add(n)
                    paragraph.append(n)
        if paragraph:
            out.append(paragraph)
    return out
