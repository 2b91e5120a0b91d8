"""Token estimates and the spec's token caps (web-research.txt: 15K per source, 50K total).

No tokenizer is downloaded at run time, so counts are estimates: one token per word or
punctuation mark, times 1.15 for the sub-word splits real tokenizers make. That is close
to BPE counts on English prose and errs high, which is the safe side for a cap.
"""

from __future__ import annotations

import math
import re
from collections import OrderedDict
from dataclasses import dataclass, field

_PIECE = re.compile(r"\w+|[^\w\s]")
_SUBWORD_FACTOR = 1.15


def estimate_tokens(text: str) -> int:
    return math.ceil(len(_PIECE.findall(text)) * _SUBWORD_FACTOR)


def truncate_to_tokens(text: str, cap: int) -> tuple[str, bool]:
    """``text`` cut to at most ``cap`` estimated tokens, at a paragraph or sentence end
    where one is near; the flag says whether anything was cut."""
    pieces_allowed = int(cap / _SUBWORD_FACTOR)
    pieces = list(_PIECE.finditer(text))
    if len(pieces) <= pieces_allowed:
        return text, False
    cut = pieces[pieces_allowed - 1].end() if pieces_allowed > 0 else 0
    head = text[:cut]
    for boundary in ("\n\n", ". ", "\n"):
        position = head.rfind(boundary)
        if position > cut * 0.8:
            head = head[: position + len(boundary)]
            break
    return head.rstrip(), True


@dataclass
class TokenWindow:
    """The source text a run keeps in its working context: the newest ``cap`` tokens.

    Adding a source beyond the cap evicts the oldest ones (their snapshots stay on disk);
    ``add`` returns the ids it evicted so the caller can WARN.
    """

    cap: int
    _sources: OrderedDict[str, int] = field(default_factory=OrderedDict)

    @property
    def total(self) -> int:
        return sum(self._sources.values())

    def add(self, source_id: str, tokens: int) -> list[str]:
        self._sources[source_id] = tokens
        self._sources.move_to_end(source_id)
        evicted: list[str] = []
        while self.total > self.cap and len(self._sources) > 1:
            oldest, _ = self._sources.popitem(last=False)
            evicted.append(oldest)
        return evicted
