"""Cross-checking: which other sources of a run may corroborate a claim.

A claim is extracted from one source (and may cite others). A corroborating source must
be independent of all of them and of each other: its origin (registrable domain, or a
near-duplicate text, as ``claims.independence`` groups them) is one the claim does not
cite, and at most one source per origin is taken. Among those, the sources with a sentence
covering most of the claim's content words are the candidates; whether they support,
refute or say nothing is then the judge's call, and the verification engine attaches a
candidate to the claim only when the judge says it supports or refutes it.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from assay.claims.independence import Origins
from assay.text import content_words, split_sentences

COVERAGE = 0.5


@dataclass(frozen=True)
class CorroborationPool:
    """The sentences of the sources that may corroborate, each as its set of content words
    (stemmed), indexed by word: built once per verification pass. A sentence covering
    ≥ COVERAGE of a claim's k words shares at least one of its k - ⌈COVERAGE·k⌉ + 1 rarest
    words, so only the sentences holding those are counted, never every sentence that
    shares a common word."""

    sources: tuple[str, ...]  # the source id of each sentence
    words: tuple[frozenset[str], ...]  # the content words of each sentence
    postings: Mapping[str, tuple[int, ...]]  # word → the sentences that contain it

    @classmethod
    def of(cls, texts: Mapping[str, str]) -> CorroborationPool:
        sources: list[str] = []
        words: list[frozenset[str]] = []
        postings: dict[str, list[int]] = {}
        for source_id, text in texts.items():
            for sentence in split_sentences(text):
                found = frozenset(content_words(sentence.text))
                for word in found:
                    postings.setdefault(word, []).append(len(sources))
                sources.append(source_id)
                words.append(found)
        return cls(tuple(sources), tuple(words), {w: tuple(s) for w, s in postings.items()})

    def covering(self, claim: str) -> dict[str, float]:
        """Each source with a sentence covering ≥ COVERAGE of ``claim`` (the share of its
        content words the sentence contains, as ``relevance.coverage``), at its best."""
        wanted = set(content_words(claim))
        if not wanted:
            return {}
        need = math.ceil(COVERAGE * len(wanted))
        rarest = sorted(wanted, key=lambda w: (len(self.postings.get(w, ())), w))
        seen = {i for word in rarest[: len(wanted) - need + 1] for i in self.postings.get(word, ())}
        best: dict[str, float] = {}
        for sentence in seen:
            share = len(wanted & self.words[sentence]) / len(wanted)
            source_id = self.sources[sentence]
            if share >= COVERAGE and share > best.get(source_id, 0.0):
                best[source_id] = share
        return best

    def candidates(
        self, claim: str, origins: Origins, *, cited: Sequence[str], limit: int = 3
    ) -> list[str]:
        """Up to ``limit`` source ids, of distinct origins none of ``cited`` shares, each
        with a sentence covering ≥ COVERAGE of the claim (best covering first)."""
        taken = {origins.of.get(s, s) for s in cited}
        scored = [
            (best, source_id)
            for source_id, best in self.covering(claim).items()
            if source_id not in cited and origins.of.get(source_id, source_id) not in taken
        ]
        chosen: list[str] = []
        for _, source_id in sorted(scored, key=lambda x: (-x[0], x[1])):
            origin = origins.of.get(source_id, source_id)
            if origin not in taken and len(chosen) < limit:
                taken.add(origin)
                chosen.append(source_id)
        return chosen
