"""How much of a claim a sentence speaks to: the share of its content words it contains."""

from __future__ import annotations

from assay.engines.extractive.text import content_words


def coverage(claim: str, sentence: str) -> float:
    wanted = set(content_words(claim))  # content_words are stemmed already
    if not wanted:
        return 0.0
    return len(wanted & set(content_words(sentence))) / len(wanted)
