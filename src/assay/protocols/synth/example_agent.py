"""An example external agent on the JSON contract (``contract.py``), standard library only.

    agents:
      - {name: Own, role: SEARCHER, can_search: true, search_tool: searxng,
         searxng_url: "http://127.0.0.2:8899", contract: json,
         command: ["python", "-m", "assay.protocols.synth.example_agent",
                   "--searxng", "http://127.0.0.2:8899"]}

Phase 1: it searches the topic on a SearXNG instance (JSON API), and writes a narrative
from the result snippets, citing each as [n]. Phase 2: for each statement it searches the
statement, reads the first result page and answers VERIFIED with the page's sentence that
shares most of the statement's words (and all of its numbers), else UNVERIFIABLE. It is a
small honest agent, meant as a template: assay checks everything it claims.

POKE (``SIGUSR1``, see ``contract.py``): it stops fetching at once and answers with what it
has (the statements it had no time for are UNVERIFIABLE, "not checked: poked"); poked
before its search answered, it signals ``{"block": reason}``.
"""

from __future__ import annotations

import argparse
import html
import json
import re
import signal
import sys
import urllib.parse
import urllib.request
from typing import Any

_TAG = re.compile(r"<(script|style)[^>]*>.*?</\1>|<[^>]+>", re.S | re.I)
_SENTENCE = re.compile(r"(?<=[.!?])\s+|\s*\n\s*")
_WORD = re.compile(r"[a-z0-9]+")
_NUMBER = re.compile(r"\d[\d,.]*")


class Poked(Exception):
    """The MANAGER's POKE arrived while a page was loading: wrap up now."""


_poke = {"poked": False, "loading": False}


def _on_poke(signum: int, frame: object) -> None:
    _poke["poked"] = True
    if _poke["loading"]:  # interrupt the page being read; the work so far is answered
        raise Poked


def listen_for_poke() -> None:
    """Handle the contract's POKE (assay starts agents with it ignored)."""
    _poke["poked"] = False
    signal.signal(signal.SIGUSR1, _on_poke)


def fetch(url: str) -> str:
    """A page, or Poked when the POKE arrives before or while it loads."""
    if _poke["poked"]:
        raise Poked
    _poke["loading"] = True
    try:
        return _get(url)
    finally:
        _poke["loading"] = False


def _get(url: str, timeout: float = 20.0) -> str:
    if urllib.parse.urlsplit(url).scheme not in ("http", "https"):
        raise ValueError(f"not an http(s) URL: {url}")
    request = urllib.request.Request(url, headers={"User-Agent": "assay-example-agent"})  # noqa: S310 - checked above
    with urllib.request.urlopen(request, timeout=timeout) as reply:  # noqa: S310 - http(s) only
        data: bytes = reply.read(1_000_000)
    return data.decode("utf-8", "replace")


def search(base: str, query: str) -> list[dict[str, Any]]:
    url = f"{base.rstrip('/')}/search?" + urllib.parse.urlencode({"q": query, "format": "json"})
    found: list[dict[str, Any]] = json.loads(fetch(url)).get("results", [])
    return found[:5]


def sentences(page: str) -> list[str]:
    """The page's sentences; a block (a heading, a paragraph) never runs into the next."""
    text = html.unescape(_TAG.sub("\n", page))
    return [" ".join(s.split()) for s in _SENTENCE.split(text) if s.strip()]


def _words(text: str) -> set[str]:
    return {w for w in _WORD.findall(text.lower()) if len(w) > 3}


def phase1(base: str, topic: str) -> dict[str, Any]:
    try:
        results = search(base, topic)
    except Poked:
        return {"block": "poked before the search answered"}
    lines = []
    for number, result in enumerate(results, start=1):
        for sentence in sentences(str(result.get("content") or "")):
            if sentence.endswith((".", "!", "?")):  # a snippet cut with "…" is not used
                lines.append(f"{sentence.rstrip('.!?')} [{number}].")
    return {
        "narrative": " ".join(lines) or f"No result spoke to {topic} [1].",
        "results": [
            {"query": topic, "url": r["url"], "title": r.get("title", ""),
             "snippet": r.get("content", "")}
            for r in results
        ],
    }  # fmt: skip


def best_quote(statement: str, page: str) -> str | None:
    wanted, numbers = _words(statement), set(_NUMBER.findall(statement))
    best, score = None, 0.0
    for sentence in sentences(page):
        share = len(wanted & _words(sentence)) / len(wanted) if wanted else 0.0
        if share > score and numbers <= set(_NUMBER.findall(sentence)):
            best, score = sentence, share
    return best if score >= 0.6 else None


def phase2(base: str, statements: list[dict[str, Any]]) -> dict[str, Any]:
    verdicts = []
    for statement in statements:
        text = str(statement["text"])
        verdict: dict[str, Any] = {"statement": statement["number"], "verdict": "UNVERIFIABLE"}
        try:
            for result in search(base, text)[:1]:
                quote = best_quote(text, fetch(result["url"]))
                if quote:
                    verdict = {"statement": statement["number"], "verdict": "VERIFIED",
                               "url": result["url"], "quote": quote}  # fmt: skip
        except Poked:
            verdict["note"] = "not checked: poked"
        verdicts.append(verdict)
    return {"verdicts": verdicts}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--searxng", required=True, help="base URL of a SearXNG instance")
    args = parser.parse_args(argv)
    listen_for_poke()
    task = json.loads(sys.stdin.read())
    if task["phase"] == 1:
        reply = phase1(args.searxng, str(task["topic"]))
    else:
        reply = phase2(args.searxng, list(task["statements"]))
    sys.stdout.write(json.dumps(reply, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
