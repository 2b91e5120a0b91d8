"""Ranking claims for an answer (``answers.ranking``): its cost in calls to the embedder."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from assay.answers.ranking import rank
from assay.reading.embed import default_embedder
from tests.answers.test_answers import claim


def test_the_claims_are_embedded_in_one_batch(monkeypatch: pytest.MonkeyPatch) -> None:
    # A call per claim paid the model's per-call cost a dozen times: the answer step spent
    # most of its time there (the replayed benchmark answers took twice as long).
    claims = [claim(n, f"the river delta floods {n} fields each spring.") for n in range(12)]
    embedder = default_embedder()
    calls: list[int] = []
    real = embedder.embed

    def counting(texts: Sequence[str]) -> object:
        calls.append(len(texts))
        return real(texts)

    monkeypatch.setattr(embedder, "embed", counting)
    ranked = rank("How many fields does the river delta flood?", claims)
    assert len(ranked) == len(claims)  # every claim shares words with the question
    assert calls == [1 + len(claims)]  # the question and each claim, once, in one call
